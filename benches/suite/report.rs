//! The suite's output: CSV, Markdown tables and the ratio chart, and reading an earlier CSV
//! back to redraw them.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use plotters::prelude::*;

use super::common::csv;
use super::{IMPLS, Row, fmt_us};

pub(crate) fn out_dir() -> PathBuf {
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    target.join("blitz-bench")
}

pub(crate) fn write_csv(rows: &[Row], path: &Path) -> std::io::Result<()> {
    let mut csv =
        String::from("workload,implementation,threads,median_us,p90_us,ratio_to_sequential\n");
    for r in rows {
        let ratio = r.ratio.map_or(String::new(), |x| format!("{x:.4}"));
        writeln!(
            csv,
            "{},{},{},{:.3},{:.3},{}",
            csv::field(&r.workload),
            csv::field(&r.implementation),
            r.threads,
            r.median_us,
            r.p90_us,
            ratio
        )
        .unwrap();
    }
    std::fs::write(path, csv)
}

/// The results as two Markdown tables (the README's): time and ratio to sequential per workload
/// and implementation; then idle CPU and wake latency per pool.
pub(crate) fn markdown(rows: &[Row], threads: &[usize]) -> String {
    let find = |w: &str, i: &str, t: usize| {
        rows.iter()
            .find(|r| r.workload == w && r.implementation == i && r.threads == t)
    };
    let mut workloads: Vec<&str> = Vec::new();
    let mut probes: Vec<(&str, &str)> = Vec::new();
    for r in rows {
        if r.ratio.is_some() {
            if !workloads.contains(&r.workload.as_str()) {
                workloads.push(&r.workload);
            }
        } else if !probes.contains(&(r.workload.as_str(), r.implementation.as_str())) {
            probes.push((&r.workload, &r.implementation));
        }
    }
    let mut md = String::new();
    if !workloads.is_empty() {
        md.push_str("| workload | sequential |");
        for i in IMPLS {
            for t in threads {
                write!(md, " {i} {t}T |").unwrap();
            }
        }
        md.push_str("\n|---|---:|");
        md.push_str(&"---:|".repeat(IMPLS.len() * threads.len()));
        md.push('\n');
        for w in &workloads {
            let seq = find(w, "sequential", 1).map_or("-".into(), |r| fmt_us(r.median_us));
            write!(md, "| {w} | {seq} |").unwrap();
            for i in IMPLS {
                for &t in threads {
                    match find(w, i, t) {
                        Some(r) => write!(
                            md,
                            " {} (x{:.2}) |",
                            fmt_us(r.median_us),
                            r.ratio.unwrap_or(f64::NAN)
                        )
                        .unwrap(),
                        None => md.push_str(" - |"),
                    }
                }
            }
            md.push('\n');
        }
    }
    let references: Vec<&Row> = rows
        .iter()
        .filter(|r| {
            r.ratio.is_some()
                && r.implementation != "sequential"
                && !IMPLS.contains(&r.implementation.as_str())
        })
        .collect();
    if !references.is_empty() {
        md.push_str("\n| reference | what | threads | median |\n|---|---|---:|---:|\n");
        for r in references {
            writeln!(
                md,
                "| {} | {} | {} | {} (x{:.2}) |",
                r.workload,
                r.implementation,
                r.threads,
                fmt_us(r.median_us),
                r.ratio.unwrap_or(f64::NAN)
            )
            .unwrap();
        }
    }
    if !probes.is_empty() {
        md.push_str("\n| probe | pool |");
        for t in threads {
            write!(md, " {t}T |").unwrap();
        }
        md.push_str("\n|---|---|");
        md.push_str(&"---:|".repeat(threads.len()));
        md.push('\n');
        for (w, i) in &probes {
            write!(md, "| {w} | {i} |").unwrap();
            for &t in threads {
                match find(w, i, t) {
                    // Idle rows hold the CPU time used in 1 s: as a share of one core.
                    Some(r) if r.workload.starts_with("idle") => write!(
                        md,
                        " {:.3}% of a core (max {:.3}%) |",
                        r.median_us / 1e4,
                        r.p90_us / 1e4
                    )
                    .unwrap(),
                    // Round-trip rows hold their p99 where the others hold their p90.
                    Some(r) if r.workload.starts_with("round trip") => write!(
                        md,
                        " median {}, p99 {} |",
                        fmt_us(r.median_us),
                        fmt_us(r.p90_us)
                    )
                    .unwrap(),
                    Some(r) => write!(
                        md,
                        " median {}, p90 {} |",
                        fmt_us(r.median_us),
                        fmt_us(r.p90_us)
                    )
                    .unwrap(),
                    None => md.push_str(" - |"),
                }
            }
            md.push('\n');
        }
    }
    md
}

/// Ticks for the log axis: 1, 2, 5 per decade, plus quarters below 1 where the faster-than-
/// sequential bars end (plotters' own log ticks skip that region).
fn y_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let mut ticks = vec![0.25, 0.5, 0.75];
    let mut decade = 1.0;
    while decade <= hi {
        ticks.extend([decade, 2.0 * decade, 5.0 * decade]);
        decade *= 10.0;
    }
    let mut small = 0.1;
    while small >= lo {
        ticks.extend(
            [small, small * 2.0, small * 5.0]
                .iter()
                .filter(|&&t| t < 0.25),
        );
        small /= 10.0;
    }
    ticks.retain(|&t| t >= lo && t <= hi);
    ticks
}

fn impl_color(implementation: &str) -> RGBColor {
    match implementation {
        "blitz-dsl" => RGBColor(200, 30, 30),
        "blitz-raw" => RGBColor(240, 140, 20),
        "rayon" => RGBColor(30, 90, 200),
        _ => RGBColor(30, 150, 60),
    }
}

/// A grouped bar chart: one group per workload, one bar per (implementation, threads), height
/// = time relative to sequential on a log axis (1 = as fast as sequential).
pub(crate) fn write_chart(
    rows: &[Row],
    threads: &[usize],
    path: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    let ratio_rows: Vec<&Row> = rows
        .iter()
        .filter(|r| r.ratio.is_some() && r.implementation != "sequential")
        .collect();
    let mut workloads: Vec<&str> = Vec::new();
    for r in &ratio_rows {
        if !workloads.contains(&r.workload.as_str()) {
            workloads.push(&r.workload);
        }
    }
    if workloads.is_empty() {
        return Ok(());
    }
    let series: Vec<(&str, usize)> = IMPLS
        .iter()
        .flat_map(|&i| threads.iter().map(move |&t| (i, t)))
        .filter(|&(i, t)| {
            ratio_rows
                .iter()
                .any(|r| r.implementation == i && r.threads == t)
        })
        .collect();
    let ratio_of = |w: &str, i: &str, t: usize| {
        ratio_rows
            .iter()
            .find(|r| r.workload == w && r.implementation == i && r.threads == t)
            .and_then(|r| r.ratio)
    };
    let (lo, hi) = ratio_rows
        .iter()
        .filter_map(|r| r.ratio)
        .fold((1.0f64, 1.0f64), |(lo, hi), x| (lo.min(x), hi.max(x)));
    let (lo, hi) = (lo / 1.5, hi * 1.5);

    let root = SVGBackend::new(path, (1600, 760)).into_drawing_area();
    root.fill(&WHITE)?;
    let cpus = std::thread::available_parallelism().map_or(0, |n| n.get());
    let root = root.titled(
        &format!(
            "Blitz vs rayon vs chili: median time relative to sequential, lower is better \
             ({cpus} logical CPUs)"
        ),
        ("sans-serif", 24),
    )?;
    // The legend gets its own column so it never hides a bar.
    let (plot, legend) = root.split_horizontally(1370);
    // x in thousandths of a group (plotters' f64 axis cannot take a label formatter with key
    // points); one tick, labelled with the workload, at the middle of each group.
    const UNIT: i32 = 1000;
    let groups = workloads.len() as i32;
    let x = (0..groups * UNIT).with_key_points((0..groups).map(|g| g * UNIT + UNIT / 2).collect());
    let mut chart = ChartBuilder::on(&plot)
        .margin(20)
        .x_label_area_size(50)
        .y_label_area_size(90)
        .build_cartesian_2d(x, (lo..hi).log_scale().with_key_points(y_ticks(lo, hi)))?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .max_light_lines(1)
        .x_desc("workload")
        .y_desc("median time / sequential median time (log scale)")
        .x_label_formatter(&|v| {
            let g = (*v / UNIT) as usize;
            workloads.get(g).map_or(String::new(), |w| w.to_string())
        })
        .y_label_formatter(&|v| format!("{v}"))
        .axis_desc_style(("sans-serif", 18))
        .label_style(("sans-serif", 14))
        .draw()?;

    let width = UNIT * 84 / 100 / series.len() as i32;
    let mut key = ChartBuilder::on(&legend)
        .margin(20)
        .build_cartesian_2d(0..1, 0..1)?;
    for (k, &(implementation, t)) in series.iter().enumerate() {
        // The most threads get the full colour; fewer, a lighter shade of it.
        let rank = threads.iter().position(|&x| x == t).unwrap_or(0) + 1;
        let color = impl_color(implementation).mix(0.3 + 0.7 * rank as f64 / threads.len() as f64);
        let bars: Vec<_> = workloads
            .iter()
            .enumerate()
            .filter_map(|(g, w)| ratio_of(w, implementation, t).map(|r| (g, r)))
            .map(|(g, r)| {
                let x0 = g as i32 * UNIT + UNIT * 8 / 100 + k as i32 * width;
                Rectangle::new([(x0, lo), (x0 + width * 9 / 10, r)], color.filled())
            })
            .collect();
        chart.draw_series(bars)?;
        let plural = if t == 1 { "" } else { "s" };
        key.draw_series(std::iter::empty::<Rectangle<(i32, i32)>>())?
            .label(format!("{implementation}, {t} thread{plural}"))
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 14, y + 6)], color.filled()));
    }
    chart.draw_series(std::iter::once(PathElement::new(
        vec![(0, 1.0), (groups * UNIT, 1.0)],
        BLACK.stroke_width(2),
    )))?;
    key.draw_series(std::iter::empty::<Rectangle<(i32, i32)>>())?
        .label("sequential (= 1)")
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 14, y)], BLACK.stroke_width(2)));
    key.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE)
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    root.present()?;
    Ok(())
}

/// Rows read back from a `results.csv` this suite wrote.
pub(crate) fn read_csv(path: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(path).expect("read the CSV to redraw");
    text.lines()
        .skip(1)
        .filter(|line| !line.is_empty())
        .map(|line| {
            // From the right: only the workload's name may hold a comma (quoted since it is
            // written by `csv::field`; files written before are not).
            let bad = || panic!("not a results.csv line: {line}");
            let f: Vec<&str> = line.rsplitn(5, ',').collect();
            if f.len() != 5 {
                bad();
            }
            let (workload, implementation) = f[4].rsplit_once(',').unwrap_or_else(bad);
            Row {
                workload: csv::unquote(workload),
                implementation: csv::unquote(implementation),
                threads: f[3].parse().expect("threads"),
                median_us: f[2].parse().expect("median_us"),
                p90_us: f[1].parse().expect("p90_us"),
                ratio: f[0].parse().ok(),
            }
        })
        .collect()
}
