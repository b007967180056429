//! The Mandelbrot set with `par_for!`: one iteration per pixel row, and a `reduce` clause
//! counting the points inside the set. Writes a PGM image if given a file name.
//!
//! `cargo run --release --example mandelbrot -- [size] [out.pgm]` (default 1024).

use std::time::Instant;

const MAX_ITER: u32 = 255;

fn escape_time(cx: f64, cy: f64) -> u32 {
    let (mut x, mut y) = (0.0f64, 0.0f64);
    let mut i = 0;
    while i < MAX_ITER && x * x + y * y <= 4.0 {
        let t = x * x - y * y + cx;
        y = 2.0 * x * y + cy;
        x = t;
        i += 1;
    }
    i
}

fn pixel(size: usize, row: usize, col: usize) -> u32 {
    let cx = -2.0 + 3.0 * col as f64 / size as f64;
    let cy = -1.5 + 3.0 * row as f64 / size as f64;
    escape_time(cx, cy)
}

fn render_serial(size: usize) -> (Vec<u8>, u64) {
    let mut img = vec![0u8; size * size];
    let mut inside = 0;
    for row in 0..size {
        for col in 0..size {
            let it = pixel(size, row, col);
            inside += u64::from(it == MAX_ITER);
            img[row * size + col] = it as u8;
        }
    }
    (img, inside)
}

fn render(size: usize) -> (Vec<u8>, u64) {
    let mut img = vec![0u8; size * size];
    let mut rows: Vec<(usize, &mut [u8])> = img.chunks_mut(size).enumerate().collect();
    let mut inside = 0u64;
    blitz::par_for!((row, line) in &mut rows, grain = 1, reduce(+: inside) => {
        for (col, px) in line.iter_mut().enumerate() {
            let it = pixel(size, *row, col);
            inside += u64::from(it == MAX_ITER);
            *px = it as u8;
        }
    });
    (img, inside)
}

fn main() {
    // Start the global pool outside the timings.
    blitz::join(|| (), || ());
    let mut args = std::env::args().skip(1);
    let size: usize = args
        .next()
        .map_or(1024, |a| a.parse().expect("size must be a number"));
    let out = args.next();

    let start = Instant::now();
    let (img, inside) = render(size);
    let parallel = start.elapsed();

    let start = Instant::now();
    let (want, want_inside) = render_serial(size);
    let serial = start.elapsed();

    assert_eq!(inside, want_inside);
    assert!(img == want, "images differ");
    println!(
        "{size}x{size} mandelbrot, {inside} points inside: serial {serial:?}, par_for! {parallel:?}"
    );

    if let Some(path) = out {
        let mut pgm = format!("P5\n{size} {size}\n255\n").into_bytes();
        pgm.extend(img.iter().map(|&it| 255 - it));
        std::fs::write(&path, pgm).expect("write the image");
        println!("wrote {path}");
    }
}
