//! Dense matrix multiply with `par_for!` over the rows of the result.
//!
//! `cargo run --release --example matmul -- [n]` (default 512).

use std::time::Instant;

fn matmul_serial(a: &[f64], b: &[f64], c: &mut [f64], n: usize) {
    for i in 0..n {
        for k in 0..n {
            let aik = a[i * n + k];
            for j in 0..n {
                c[i * n + j] += aik * b[k * n + j];
            }
        }
    }
}

fn matmul(a: &[f64], b: &[f64], c: &mut [f64], n: usize) {
    // One item per row of `c`, with its index; each leaf runs the serial i-k-j loop over a
    // piece of at least 4 rows.
    let mut rows: Vec<(usize, &mut [f64])> = c.chunks_mut(n).enumerate().collect();
    blitz::par_for!((i, row) in &mut rows, grain = 4 => {
        let i = *i;
        for k in 0..n {
            let aik = a[i * n + k];
            for (cij, bkj) in row.iter_mut().zip(&b[k * n..(k + 1) * n]) {
                *cij += aik * bkj;
            }
        }
    });
}

fn main() {
    // Start the global pool outside the timings.
    blitz::join(|| (), || ());
    let n: usize = std::env::args()
        .nth(1)
        .map_or(512, |a| a.parse().expect("n must be a number"));
    let a: Vec<f64> = (0..n * n).map(|i| ((i * 7) % 13) as f64 - 6.0).collect();
    let b: Vec<f64> = (0..n * n).map(|i| ((i * 5) % 11) as f64 - 5.0).collect();

    let mut want = vec![0.0; n * n];
    let start = Instant::now();
    matmul_serial(&a, &b, &mut want, n);
    let serial = start.elapsed();

    let mut got = vec![0.0; n * n];
    let start = Instant::now();
    matmul(&a, &b, &mut got, n);
    let parallel = start.elapsed();

    assert_eq!(got, want);
    println!("{n}x{n} matrix multiply: serial {serial:?}, par_for! {parallel:?}");
}
