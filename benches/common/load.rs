//! How much of the machine other processes used during a run: noise the timings could not
//! avoid, reported next to them. Linux `/proc` only; elsewhere every reading is zero.

/// A reading of the machine's busy and total clock ticks and this process's own ticks.
pub type Ticks = ((u64, u64), u64);

/// Busy and total clock ticks of the whole machine so far (the `cpu` line of `/proc/stat`).
fn machine_ticks() -> (u64, u64) {
    let stat = std::fs::read_to_string("/proc/stat").unwrap_or_default();
    let fields: Vec<u64> = stat
        .lines()
        .next()
        .unwrap_or_default()
        .split_whitespace()
        .skip(1)
        .filter_map(|f| f.parse().ok())
        .collect();
    // user nice system idle iowait irq softirq steal ...: idle and iowait are not busy.
    let total: u64 = fields.iter().take(8).sum();
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

/// Clock ticks of CPU this process has used (every thread, exited ones included).
fn own_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    // Fields after the parenthesised command name; utime and stime are the 14th and 15th.
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0)
}

/// A reading for [`foreign_load`].
pub fn ticks() -> Ticks {
    (machine_ticks(), own_ticks())
}

/// What other processes used of the machine between two [`ticks`] readings, in CPUs on
/// average (out of `cpus`).
pub fn foreign_load(before: Ticks, after: Ticks, cpus: usize) -> f64 {
    let (((busy0, total0), own0), ((busy1, total1), own1)) = (before, after);
    let per_cpu_ticks = (total1 - total0) as f64 / cpus.max(1) as f64;
    let foreign = (busy1 - busy0).saturating_sub(own1 - own0) as f64;
    if per_cpu_ticks > 0.0 {
        foreign / per_cpu_ticks
    } else {
        0.0
    }
}
