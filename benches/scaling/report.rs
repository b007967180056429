//! The medians as lines, tables, CSV and an SVG chart.

use std::path::Path;
use std::time::Duration;

use plotters::prelude::*;

use crate::pools::Lib;

/// The medians of one (shape, library, P).
pub(crate) struct Row {
    pub(crate) shape: &'static str,
    pub(crate) lib: Lib,
    pub(crate) threads: usize,
    pub(crate) wall: Duration,
    pub(crate) sequential: Duration,
}

impl Row {
    pub(crate) fn efficiency(&self) -> f64 {
        self.sequential.as_secs_f64() / self.threads as f64 / self.wall.as_secs_f64() * 100.0
    }
}

pub(crate) fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1e3
}

/// One table per shape: a row per library, a column per `P`, efficiency in percent.
pub(crate) fn tables(rows: &[Row], shapes: &[&str], libs: &[Lib], threads: &[usize]) -> String {
    let mut out = String::new();
    for &shape in shapes {
        let Some(first) = rows.iter().find(|r| r.shape == shape) else {
            continue;
        };
        out += &format!(
            "\n{shape}: efficiency %, sequential {:.1} ms\n{:<7}",
            ms(first.sequential),
            ""
        );
        for p in threads {
            out += &format!("{:>7}", format!("P={p}"));
        }
        out.push('\n');
        for &lib in libs {
            out += &format!("{:<7}", lib.name());
            for &p in threads {
                let cell = rows
                    .iter()
                    .find(|r| r.shape == shape && r.lib == lib && r.threads == p)
                    .map_or("-".to_string(), |r| format!("{:.1}", r.efficiency()));
                out += &format!("{cell:>7}");
            }
            out.push('\n');
        }
    }
    out
}

pub(crate) fn write_csv(rows: &[Row], header: &str, path: &Path) -> std::io::Result<()> {
    let mut csv =
        format!("# {header}\nshape,library,threads,median_wall_us,sequential_us,efficiency_pct\n");
    for r in rows {
        csv += &format!(
            "{},{},{},{:.1},{:.1},{:.2}\n",
            crate::csv::field(r.shape),
            r.lib.name(),
            r.threads,
            r.wall.as_secs_f64() * 1e6,
            r.sequential.as_secs_f64() * 1e6,
            r.efficiency()
        );
    }
    std::fs::write(path, csv)
}

/// Efficiency against `P` (log2 axis), one panel per shape and a last one for the key. Text is
/// plain SVG `<text>` (plotters' `svg_backend` without a font crate), as in the suite's chart.
pub(crate) fn write_svg(
    rows: &[Row],
    shapes: &[&str],
    libs: &[Lib],
    threads: &[usize],
    title: &str,
    path: &Path,
) -> Result<(), Box<dyn std::error::Error>> {
    // x in thousandths of log2(P): an integer axis takes key points and a label formatter.
    let x_of = |p: usize| ((p as f64).log2() * 1000.0).round() as i32;
    let (x_lo, x_hi) = (
        x_of(threads[0]) - 300,
        x_of(threads[threads.len() - 1]) + 300,
    );
    let y_hi = rows
        .iter()
        .map(Row::efficiency)
        .fold(110.0f64, f64::max)
        .ceil();

    let cols = (shapes.len() + 1).min(4);
    let grid_rows = (shapes.len() + 1).div_ceil(cols);
    let size = (cols as u32 * 420, grid_rows as u32 * 320 + 50);
    let root = SVGBackend::new(path, size).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(title, ("sans-serif", 20))?;
    let panels = root.split_evenly((grid_rows, cols));

    for (&shape, panel) in shapes.iter().zip(&panels) {
        let mut chart = ChartBuilder::on(panel)
            .caption(shape, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(35)
            .y_label_area_size(45)
            .build_cartesian_2d(
                (x_lo..x_hi).with_key_points(threads.iter().map(|&p| x_of(p)).collect()),
                0.0..y_hi,
            )?;
        chart
            .configure_mesh()
            .max_light_lines(1)
            .x_desc("P (workers, log scale)")
            .y_desc("efficiency %")
            .x_label_formatter(&|&v| {
                threads
                    .iter()
                    .find(|&&p| x_of(p) == v)
                    .map_or(String::new(), |p| p.to_string())
            })
            .y_label_formatter(&|v| format!("{v:.0}"))
            .axis_desc_style(("sans-serif", 13))
            .label_style(("sans-serif", 12))
            .draw()?;
        chart.draw_series(std::iter::once(PathElement::new(
            vec![(x_lo, 100.0), (x_hi, 100.0)],
            BLACK.mix(0.5).stroke_width(1),
        )))?;
        // blitz last, so that it is on top where lines coincide.
        for &lib in libs.iter().rev() {
            let points: Vec<(i32, f64)> = rows
                .iter()
                .filter(|r| r.shape == shape && r.lib == lib)
                .map(|r| (x_of(r.threads), r.efficiency()))
                .collect();
            let color = lib.color();
            // A path, not a `LineSeries`: that needs a plotters feature the suite does not use.
            chart.draw_series(std::iter::once(PathElement::new(
                points.clone(),
                color.stroke_width(2),
            )))?;
            chart.draw_series(
                points
                    .into_iter()
                    .map(|p| Circle::new(p, 3, color.filled())),
            )?;
        }
    }

    // The key, in the cell after the last shape.
    let mut key = ChartBuilder::on(&panels[shapes.len()])
        .margin(30)
        .build_cartesian_2d(0..1, 0..1)?;
    for &lib in libs {
        let color = lib.color();
        key.draw_series(std::iter::empty::<Circle<(i32, i32), i32>>())?
            .label(lib.name())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
            });
    }
    key.draw_series(std::iter::empty::<Circle<(i32, i32), i32>>())?
        .label("100% = P-fold speedup")
        .legend(|(x, y)| {
            PathElement::new(vec![(x, y), (x + 20, y)], BLACK.mix(0.5).stroke_width(1))
        });
    key.configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .background_style(WHITE)
        .border_style(BLACK)
        .label_font(("sans-serif", 15))
        .draw()?;
    root.present()?;
    Ok(())
}

/// The median; of an even count, the mean of the middle two.
pub(crate) fn median(mut v: Vec<Duration>) -> Duration {
    v.sort_unstable();
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        (v[n / 2 - 1] + v[n / 2]) / 2
    }
}
