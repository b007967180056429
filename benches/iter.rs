//! Parallel iterators and sorts: blitz against rayon and sequential `std`, side by side.
//!
//! `cargo bench --bench iter [-- ROW_FILTER...]`. Two worker threads by default
//! (`BLITZ_BENCH_THREADS`); rounds interleave the three lanes in a rotating order
//! (`BLITZ_BENCH_ROUNDS`, default 9) and every figure is a median. Each lane's result is
//! checked against the sequential one before anything is timed. The parallel lanes are timed
//! inside their pool's `install`, so a row measures the iterator, not the entry into the pool.
//! Every timed run follows a pause (`SETTLE`) and an untimed run of the same lane: the other
//! pool's threads have gone to sleep by then and this lane's pool is awake, so a row measures
//! one library at a time in its steady state.
//! Writes `docs/bench/iter.csv` and `docs/bench/iter.svg` (when no filter is given).

#[path = "common/csv.rs"]
mod csv;

use std::hint::black_box;
use std::time::{Duration, Instant};

/// The parallel workloads, written once against rayon's names and compiled twice: with
/// `blitz::prelude` and with `rayon::prelude` in scope.
macro_rules! workloads {
    () => {
        pub fn sum(v: &[u64]) -> u64 {
            v.par_iter().sum()
        }
        pub fn sqrt_sum(v: &[f64]) -> f64 {
            v.par_iter().map(|x| x.sqrt()).sum()
        }
        pub fn range_map_sum(n: u64) -> u64 {
            (0..n).into_par_iter().map(|i| i ^ (i >> 3)).sum()
        }
        pub fn filter_count(v: &[u64]) -> usize {
            v.par_iter().filter(|&&x| x % 3 == 0).count()
        }
        pub fn min_by_key(v: &[u64]) -> u64 {
            *v.par_iter().min_by_key(|&&x| x ^ 0x5555).unwrap()
        }
        pub fn collect_map(v: &[u64]) -> Vec<u64> {
            v.par_iter().map(|x| x * 3).collect()
        }
        pub fn dot(a: &[f64], b: &[f64]) -> f64 {
            a.par_iter().zip(b).map(|(x, y)| x * y).sum()
        }
        pub fn position_first(v: &[u64], needle: u64) -> Option<usize> {
            v.par_iter().position_first(|&x| x == needle)
        }
        pub fn bridge_parse_sum(text: &str) -> u64 {
            text.lines()
                .par_bridge()
                .map(|line| line.parse::<u64>().unwrap())
                .sum()
        }
        pub fn sort_unstable(v: &mut [u64]) {
            v.par_sort_unstable()
        }
        pub fn sort_stable(v: &mut [u64]) {
            v.par_sort()
        }
    };
}

mod with_blitz {
    use blitz::prelude::*;
    workloads!();
}

mod with_rayon {
    use rayon::prelude::*;
    workloads!();
}

/// A lane: runs the workload once, returns its time and a checksum of its result.
type Lane<'a> = Box<dyn FnMut() -> (Duration, u64) + 'a>;

struct Row<'a> {
    name: &'static str,
    lanes: [Lane<'a>; 3],
}

const LANES: [&str; 3] = ["std", "blitz", "rayon"];

/// The pause before each lane's untimed and timed runs. An idle pool's threads look for work
/// for a while before they sleep (both libraries spin and yield for tens to hundreds of
/// microseconds); on two CPUs, a lane that starts meanwhile shares a CPU with them. Without the
/// pause, a 10M-element sum read 3.1-3.5 ms in some rounds and 5.2-7.1 ms in others, for blitz
/// and rayon alike, depending on which lane ran just before it.
const SETTLE: Duration = Duration::from_millis(5);

fn timed<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    let start = Instant::now();
    let result = f();
    (start.elapsed(), result)
}

fn median(mut v: Vec<Duration>) -> Duration {
    v.sort();
    v[v.len() / 2]
}

fn env_usize(name: &str, default: usize) -> usize {
    std::env::var(name)
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(default)
}

/// Deterministic pseudo-random `u64`s.
fn random_u64s(n: usize, seed: u64) -> Vec<u64> {
    let mut x = seed | 1;
    (0..n)
        .map(|_| {
            x ^= x >> 12;
            x ^= x << 25;
            x ^= x >> 27;
            x.wrapping_mul(0x2545_f491_4f6c_dd1d)
        })
        .collect()
}

/// A float sum to about 7 significant digits: parallel sums add in another order than
/// sequential ones, so only that much of them must agree.
fn rounded(x: f64) -> u64 {
    (x.abs().log2() * 1e6).round() as u64
}

fn checksum_u64s(v: &[u64]) -> u64 {
    v.iter().enumerate().fold(0u64, |acc, (i, &x)| {
        acc.wrapping_mul(31).wrapping_add(x ^ i as u64)
    })
}

fn main() {
    let threads = env_usize("BLITZ_BENCH_THREADS", 2);
    let rounds = env_usize("BLITZ_BENCH_ROUNDS", 9).max(1);
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let blitz_pool = blitz::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let rayon_pool = rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap();
    let bp = &blitz_pool;
    let rp = &rayon_pool;

    let u64s: Vec<u64> = (0..10_000_000u64)
        .map(|i| i.wrapping_mul(2_654_435_761) % 1_000_000)
        .collect();
    let f64s: Vec<f64> = (0..10_000_000u32).map(f64::from).collect();
    let other: Vec<f64> = (0..10_000_000u32)
        .map(|i| f64::from(i % 1000) * 0.5)
        .collect();
    let small: Vec<u64> = (0..2_000u64).collect();
    let lines: String = u64s[..1_000_000].iter().map(|x| format!("{x}\n")).collect();
    let hit_at = u64s.len() / 100;
    let needle = u64::MAX;
    let mut haystack = u64s.clone();
    haystack[hit_at] = needle;
    let random4m = random_u64s(4_000_000, 42);
    let mut sorted4m = random4m.clone();
    sorted4m.sort_unstable();

    macro_rules! row {
        ($name:expr, |$v:ident| std: $std:expr, blitz: $blitz:expr, rayon: $rayon:expr) => {
            Row {
                name: $name,
                lanes: [
                    Box::new(|| {
                        let $v = black_box(());
                        let (t, r) = timed(|| $std);
                        (t, r)
                    }),
                    Box::new(|| {
                        bp.install(|| {
                            let $v = black_box(());
                            timed(|| $blitz)
                        })
                    }),
                    Box::new(|| {
                        rp.install(|| {
                            let $v = black_box(());
                            timed(|| $rayon)
                        })
                    }),
                ],
            }
        };
    }

    /// A sort row: the input is cloned outside the timed region.
    macro_rules! sort_row {
        ($name:expr, $input:expr, |$s:ident| std: $std:expr, blitz: $blitz:expr, rayon: $rayon:expr) => {
            Row {
                name: $name,
                lanes: [
                    Box::new(|| {
                        let mut $s = $input.clone();
                        let (t, ()) = timed(|| $std);
                        (t, checksum_u64s(&$s))
                    }),
                    Box::new(|| {
                        let mut $s = $input.clone();
                        let t = bp.install(|| timed(|| $blitz).0);
                        (t, checksum_u64s(&$s))
                    }),
                    Box::new(|| {
                        let mut $s = $input.clone();
                        let t = rp.install(|| timed(|| $rayon).0);
                        (t, checksum_u64s(&$s))
                    }),
                ],
            }
        };
    }

    let mut rows: Vec<Row<'_>> = vec![
        row!("sum 10M u64", |_v|
            std: u64s.iter().sum::<u64>(),
            blitz: with_blitz::sum(&u64s),
            rayon: with_rayon::sum(&u64s)),
        row!("sqrt map-sum 10M f64", |_v|
            std: rounded(f64s.iter().map(|x| x.sqrt()).sum::<f64>()),
            blitz: rounded(with_blitz::sqrt_sum(&f64s)),
            rayon: rounded(with_rayon::sqrt_sum(&f64s))),
        row!("range map-sum 100M", |_v|
            std: (0..100_000_000u64).map(|i| i ^ (i >> 3)).sum::<u64>(),
            blitz: with_blitz::range_map_sum(100_000_000),
            rayon: with_rayon::range_map_sum(100_000_000)),
        row!("filter+count 10M", |_v|
            std: u64s.iter().filter(|&&x| x % 3 == 0).count() as u64,
            blitz: with_blitz::filter_count(&u64s) as u64,
            rayon: with_rayon::filter_count(&u64s) as u64),
        row!("min_by_key 10M", |_v|
            std: *u64s.iter().min_by_key(|&&x| x ^ 0x5555).unwrap(),
            blitz: with_blitz::min_by_key(&u64s),
            rayon: with_rayon::min_by_key(&u64s)),
        row!("collect map 10M", |_v|
            std: checksum_u64s(&u64s.iter().map(|x| x * 3).collect::<Vec<u64>>()),
            blitz: checksum_u64s(&with_blitz::collect_map(&u64s)),
            rayon: checksum_u64s(&with_rayon::collect_map(&u64s))),
        row!("zip dot product 10M", |_v|
            std: rounded(f64s.iter().zip(&other).map(|(a, b)| a * b).sum::<f64>()),
            blitz: rounded(with_blitz::dot(&f64s, &other)),
            rayon: rounded(with_rayon::dot(&f64s, &other))),
        row!("position_first, hit at 1% of 10M", |_v|
            std: haystack.iter().position(|&x| x == needle).unwrap() as u64,
            blitz: with_blitz::position_first(&haystack, needle).unwrap() as u64,
            rayon: with_rayon::position_first(&haystack, needle).unwrap() as u64),
        row!("sum 2k u64, 2000 calls", |_v|
            std: (0..2000).map(|_| black_box(&small).iter().sum::<u64>()).sum::<u64>(),
            blitz: (0..2000).map(|_| with_blitz::sum(black_box(&small))).sum::<u64>(),
            rayon: (0..2000).map(|_| with_rayon::sum(black_box(&small))).sum::<u64>()),
        row!("par_bridge: parse and sum 1M lines", |_v|
            std: lines.lines().map(|line| line.parse::<u64>().unwrap()).sum::<u64>(),
            blitz: with_blitz::bridge_parse_sum(&lines),
            rayon: with_rayon::bridge_parse_sum(&lines)),
        sort_row!("sort_unstable 4M random u64", random4m, |s|
            std: s.sort_unstable(),
            blitz: with_blitz::sort_unstable(&mut s),
            rayon: with_rayon::sort_unstable(&mut s)),
        sort_row!("stable sort 4M random u64", random4m, |s|
            std: s.sort(),
            blitz: with_blitz::sort_stable(&mut s),
            rayon: with_rayon::sort_stable(&mut s)),
        sort_row!("sort_unstable 4M sorted u64", sorted4m, |s|
            std: s.sort_unstable(),
            blitz: with_blitz::sort_unstable(&mut s),
            rayon: with_rayon::sort_unstable(&mut s)),
        sort_row!("stable sort 4M sorted u64", sorted4m, |s|
            std: s.sort(),
            blitz: with_blitz::sort_stable(&mut s),
            rayon: with_rayon::sort_stable(&mut s)),
    ];
    if !filters.is_empty() {
        rows.retain(|r| filters.iter().any(|f| r.name.contains(f.as_str())));
    }

    // Check every lane against the sequential one before timing.
    for row in &mut rows {
        let want = (row.lanes[0])().1;
        for (lane, name) in row.lanes.iter_mut().zip(LANES).skip(1) {
            let got = lane().1;
            assert_eq!(got, want, "{}: {name} disagrees with std", row.name);
        }
    }

    let mut times: Vec<[Vec<Duration>; 3]> = rows.iter().map(|_| Default::default()).collect();
    for round in 0..rounds {
        for (row, samples) in rows.iter_mut().zip(&mut times) {
            for k in 0..3 {
                let lane = (round + k) % 3;
                std::thread::sleep(SETTLE);
                (row.lanes[lane])();
                samples[lane].push((row.lanes[lane])().0);
            }
        }
    }

    let header = format!(
        "{threads} threads, {rounds} interleaved rounds, medians; ratio < 1 means blitz is faster"
    );
    println!("{header}");
    println!(
        "{:<34} {:>10} {:>10} {:>10} {:>12} {:>10}",
        "workload", "std ms", "blitz ms", "rayon ms", "blitz/rayon", "blitz/std"
    );
    let mut csv =
        format!("# {header}\nworkload,std_us,blitz_us,rayon_us,blitz_over_rayon,blitz_over_std\n");
    let mut bars = Vec::new();
    for (row, samples) in rows.iter().zip(times) {
        let [s, b, r] = samples.map(median);
        let (vs_rayon, vs_std) = (
            b.as_secs_f64() / r.as_secs_f64(),
            b.as_secs_f64() / s.as_secs_f64(),
        );
        println!(
            "{:<34} {:>10.3} {:>10.3} {:>10.3} {:>12.3} {:>10.3}",
            row.name,
            s.as_secs_f64() * 1e3,
            b.as_secs_f64() * 1e3,
            r.as_secs_f64() * 1e3,
            vs_rayon,
            vs_std
        );
        csv += &format!(
            "{},{:.1},{:.1},{:.1},{:.3},{:.3}\n",
            csv::field(row.name),
            s.as_secs_f64() * 1e6,
            b.as_secs_f64() * 1e6,
            r.as_secs_f64() * 1e6,
            vs_rayon,
            vs_std
        );
        bars.push((row.name, s, b, r));
    }
    if filters.is_empty() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/bench");
        std::fs::write(dir.join("iter.csv"), csv).expect("write iter.csv");
        std::fs::write(dir.join("iter.svg"), svg(&header, &bars)).expect("write iter.svg");
        println!("wrote docs/bench/iter.csv and docs/bench/iter.svg");
    }
}

/// A bar chart of each lane's time relative to the slowest lane of its row (plain SVG).
fn svg(header: &str, bars: &[(&str, Duration, Duration, Duration)]) -> String {
    let header = header.replace('&', "&amp;").replace('<', "&lt;");
    let (label_w, bar_w, row_h) = (300.0, 420.0, 54.0);
    let height = 70.0 + row_h * bars.len() as f64 + 30.0;
    let colors = ["#9e9e9e", "#d62728", "#1f77b4"];
    let mut out = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" \
         font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n\
         <text x=\"10\" y=\"20\" font-size=\"14\">Parallel iterators and sorts: time relative to the slowest lane (shorter is faster)</text>\n\
         <text x=\"10\" y=\"38\" fill=\"#555\">{header}</text>\n",
        label_w + bar_w + 140.0
    );
    for (k, (name, color)) in LANES.iter().zip(colors).enumerate() {
        let x = label_w + 120.0 * k as f64;
        out += &format!(
            "<rect x=\"{x}\" y=\"46\" width=\"12\" height=\"12\" fill=\"{color}\"/><text x=\"{}\" y=\"57\">{name}</text>\n",
            x + 16.0
        );
    }
    for (i, (name, s, b, r)) in bars.iter().enumerate() {
        let y = 70.0 + row_h * i as f64;
        let times = [*s, *b, *r];
        let slowest = times.iter().max().unwrap().as_secs_f64();
        out += &format!("<text x=\"10\" y=\"{}\">{name}</text>\n", y + 28.0);
        for (k, t) in times.iter().enumerate() {
            let w = bar_w * t.as_secs_f64() / slowest;
            let yy = y + 4.0 + 15.0 * k as f64;
            out += &format!(
                "<rect x=\"{label_w}\" y=\"{yy}\" width=\"{w:.1}\" height=\"13\" fill=\"{}\"/>\
                 <text x=\"{:.1}\" y=\"{:.1}\" font-size=\"10\">{:.3} ms</text>\n",
                colors[k],
                label_w + w + 4.0,
                yy + 10.5,
                t.as_secs_f64() * 1e3
            );
        }
    }
    out + "</svg>\n"
}
