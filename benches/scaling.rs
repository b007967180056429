//! Scaling to wide pools: how close each fork-join shape gets to a `P`-fold speedup on `P`
//! workers, for blitz, rayon and chili side by side.
//!
//! The leaves *sleep* (`std::thread::sleep(leaf)`) instead of computing, so `P` workers can all
//! be busy at once even on a 2-core machine: what is measured is how well each scheduler
//! spreads the leaves over the pool (how fast idle workers find work, how much of the tree stays
//! on one thread), not how fast the CPU is. Each leaf returns a value, and every result is
//! checked against the sequential reference's.
//!
//! # Running
//!
//! ```text
//! cargo bench --bench scaling -- [--threads 1,2,4,8,16,32,64] [--leaf-us 400] [--rounds 5]
//!                                 [--shape SUBSTRING]... [--libs blitz,rayon,chili]
//! ```
//!
//! The values shown are the defaults. `--shape` keeps only the shapes whose name contains one
//! of the given substrings; `--libs` picks the libraries. With the defaults the run takes about
//! two minutes.
//!
//! # Method
//!
//! One pool per (library, `P`), built once (blitz and rayon with [`STACK_SIZE`] stacks for the
//! 512-deep chain; chili has no stack option and counts the thread that calls `scope()` as one
//! of its `P`). First every case runs once untimed: that warms each pool up and checks each
//! result against the sequential one. Then, for each round (round-major, so drift over the run
//! hits every case alike) and each shape, the sequential reference runs once, then every
//! (library, `P`). Each timed run is preceded by a [`SETTLE`] pause, so the workers of the pool
//! used before have gone back to sleep and do not compete for the two cores.
//!
//! # Reading the results
//!
//! `efficiency = sequential median / P / wall median`, in percent: 100% means the `P` workers
//! kept sleeping leaves running in parallel all the time; 50% means the run took twice as long
//! as a perfect split. At `P = 1` it is the overhead of the parallel version against plain
//! code. The fewer leaves per worker (512 leaves on 64 workers is 8 each), the more the start
//! (handing the first leaves out) and the tail (workers with nothing left to run) weigh, so
//! expect less than 100% at the widest pools even from a perfect scheduler.
//!
//! The run prints one line per (shape, library, `P`), then one table per shape, and writes
//! `docs/bench/scaling.csv` (columns `shape, library, threads, median_wall_us, sequential_us,
//! efficiency_pct`, after a `#` line with the date, machine, leaf time, rounds and the CPU
//! other processes used meanwhile) and `docs/bench/scaling.svg` (efficiency against `P`, one
//! panel per shape).
//!
//! Shape names name the blitz form; rayon runs the same tree with `rayon::join` or parallel
//! iterators and chili with `Scope::join`. chili has no loop API, so it sits out the loop
//! shapes. The N-way `fork_join!` shapes are, for rayon and chili, the balanced nests of
//! joins that `fork_join!` itself runs (`join(a, join(b, c))` for three arms,
//! `join(join(a, b), join(c, d))` for four). The right-nested 4-way shape writes the same tree
//! by hand as `join(a, join(b, join(c, d)))` in every library. The leaf-first chain swaps the
//! chain's operands (`join(leaf, rest)`), so the rest of the chain is the half on offer; the
//! spawn shape spawns one task per leaf in a loop on a scope, and the spawn chain has each task
//! spawn the next before it runs its leaf; the iterator shape maps and sums a `Vec` of leaf
//! indices with `par_iter` in both libraries.

// Helper modules, in `benches/scaling/` (a bench file's `mod x;` would look in `benches/`).
#[path = "common/csv.rs"]
mod csv;
#[path = "common/load.rs"]
mod load;
#[path = "scaling/machine.rs"]
mod machine;
#[path = "scaling/options.rs"]
mod options;
#[path = "scaling/pools.rs"]
mod pools;
#[path = "scaling/report.rs"]
mod report;
#[path = "scaling/shapes.rs"]
mod shapes;

use std::path::Path;
use std::process::exit;
use std::thread::sleep;
use std::time::{Duration, Instant};

use load::{foreign_load, ticks};
use machine::{cpus, machine, utc_now};
use options::{Options, USAGE};
use pools::Lane;
use report::{Row, median, ms, tables, write_csv, write_svg};
use shapes::{Shape, shapes};

/// Stack size of the blitz and rayon workers: room for the 512-deep chain.
const STACK_SIZE: usize = 16 << 20;
/// Pause before each timed run, for the previous pool's workers to stop looking for work.
const SETTLE: Duration = Duration::from_millis(10);

// ---------------------------------------------------------------- main

/// Times `f` after a [`SETTLE`] pause.
fn timed<R>(f: impl FnOnce() -> R) -> (Duration, R) {
    sleep(SETTLE);
    let start = Instant::now();
    let r = f();
    (start.elapsed(), r)
}

fn check(shape: &Shape, lane: &Lane, got: u64, want: u64) {
    assert_eq!(
        got,
        want,
        "{}: {} at P={} returned {got}, the sequential reference {want}",
        shape.name,
        lane.lib.name(),
        lane.threads
    );
}

fn main() {
    let opts = Options::parse(std::env::args().skip(1)).unwrap_or_else(|err| {
        eprintln!("scaling: {err}\n{USAGE}");
        exit(2)
    });
    let shapes: Vec<Shape> = shapes()
        .into_iter()
        .filter(|s| opts.wants(s.name))
        .collect();
    if shapes.is_empty() {
        eprintln!("scaling: no shape name contains {:?}\n{USAGE}", opts.shapes);
        exit(2);
    }
    let leaf = opts.leaf;
    let started = Instant::now();
    let ticks_before = ticks();

    let lanes: Vec<Lane> = opts
        .libs
        .iter()
        .flat_map(|&lib| opts.threads.iter().map(move |&p| Lane::new(lib, p)))
        .collect();
    println!(
        "scaling: {} shapes x {} pools, leaf {} us, {} rounds",
        shapes.len(),
        lanes.len(),
        leaf.as_micros(),
        opts.rounds
    );

    // Warm-up and check: every case once, untimed.
    let expected: Vec<u64> = shapes
        .iter()
        .map(|shape| {
            let want = (shape.seq)(leaf);
            for lane in &lanes {
                if let Some(got) = lane.run(shape, leaf) {
                    check(shape, lane, got, want);
                }
            }
            want
        })
        .collect();
    println!(
        "warm-up and check done in {:.1} s",
        started.elapsed().as_secs_f64()
    );

    // Rounds, round-major: times[shape][lane], sequential[shape].
    let mut sequential = vec![Vec::new(); shapes.len()];
    let mut times = vec![vec![Vec::new(); lanes.len()]; shapes.len()];
    for round in 1..=opts.rounds {
        for (s, shape) in shapes.iter().enumerate() {
            let (t, got) = timed(|| (shape.seq)(leaf));
            assert_eq!(got, expected[s], "{}: the sequential reference", shape.name);
            sequential[s].push(t);
            for (l, lane) in lanes.iter().enumerate() {
                if !lane.supports(shape) {
                    continue;
                }
                let (t, got) = timed(|| lane.run(shape, leaf).expect("supported"));
                check(shape, lane, got, expected[s]);
                times[s][l].push(t);
            }
        }
        println!(
            "round {round}/{} done at {:.1} s",
            opts.rounds,
            started.elapsed().as_secs_f64()
        );
    }
    let foreign = foreign_load(ticks_before, ticks(), cpus());

    let mut rows = Vec::new();
    for (s, shape) in shapes.iter().enumerate() {
        let seq = median(sequential[s].clone());
        for (l, lane) in lanes.iter().enumerate() {
            if !times[s][l].is_empty() {
                rows.push(Row {
                    shape: shape.name,
                    lib: lane.lib,
                    threads: lane.threads,
                    wall: median(std::mem::take(&mut times[s][l])),
                    sequential: seq,
                });
            }
        }
    }

    println!();
    for r in &rows {
        println!(
            "{:<27} {:<6} P={:<3} eff {:>5.1}%  wall {:.2} ms",
            r.shape,
            r.lib.name(),
            r.threads,
            r.efficiency(),
            ms(r.wall)
        );
    }
    let names: Vec<&str> = shapes.iter().map(|s| s.name).collect();
    print!("{}", tables(&rows, &names, &opts.libs, &opts.threads));

    let header = format!(
        "{}; {}; leaf {} us; {} rounds (medians); other processes used {foreign:.2} CPUs on \
         average",
        utc_now(),
        machine(),
        leaf.as_micros(),
        opts.rounds
    );
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/bench");
    std::fs::create_dir_all(&dir).expect("create docs/bench");
    let csv = dir.join("scaling.csv");
    write_csv(&rows, &header, &csv).expect("write scaling.csv");
    let svg = dir.join("scaling.svg");
    let title = format!(
        "Efficiency (sequential / P / wall) of sleeping leaves of {} us, median of {} rounds \
         ({} CPUs)",
        leaf.as_micros(),
        opts.rounds,
        cpus()
    );
    write_svg(&rows, &names, &opts.libs, &opts.threads, &title, &svg).expect("draw scaling.svg");
    println!(
        "\nran in {:.0} s; other processes used {foreign:.2} of the {} CPUs on average; wrote \
         {} and {}",
        started.elapsed().as_secs_f64(),
        cpus(),
        csv.display(),
        svg.display()
    );
}
