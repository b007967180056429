//! What the CSV header records about the run: date, machine, and the load of other processes.

use std::time::{SystemTime, UNIX_EPOCH};

/// The current UTC date and time, `YYYY-MM-DD HH:MM UTC` (civil-from-days, no date crate).
pub(crate) fn utc_now() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = ((secs / 86_400) as i64, secs % 86_400);
    let z = days + 719_468;
    let (era, doe) = (z.div_euclid(146_097), z.rem_euclid(146_097));
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    format!(
        "{year:04}-{month:02}-{day:02} {:02}:{:02} UTC",
        rem / 3600,
        rem % 3600 / 60
    )
}

/// The CPU model (`/proc/cpuinfo`) and the number of CPUs this process may use (`nproc`).
pub(crate) fn machine() -> String {
    let cpuinfo = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let model = cpuinfo
        .lines()
        .find_map(|l| l.strip_prefix("model name")?.split_once(':'))
        .map_or("unknown CPU", |(_, m)| m.trim());
    format!("{model}; nproc {}", cpus())
}

pub(crate) fn cpus() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

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
    // user nice system idle iowait irq softirq steal: idle and iowait are not busy.
    let total: u64 = fields.iter().take(8).sum();
    let idle = fields.get(3).copied().unwrap_or(0) + fields.get(4).copied().unwrap_or(0);
    (total - idle, total)
}

/// Clock ticks of CPU this process has used (utime + stime of `/proc/self/stat`).
fn own_ticks() -> u64 {
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let fields: Vec<u64> = after
        .split_whitespace()
        .map(|f| f.parse().unwrap_or(0))
        .collect();
    fields.get(11).copied().unwrap_or(0) + fields.get(12).copied().unwrap_or(0)
}

/// A snapshot for [`foreign_load`].
pub(crate) fn ticks() -> ((u64, u64), u64) {
    (machine_ticks(), own_ticks())
}

/// The CPUs other processes used on average between two [`ticks`]: noise the timings could
/// not avoid.
pub(crate) fn foreign_load(before: ((u64, u64), u64), after: ((u64, u64), u64)) -> f64 {
    let (((busy0, total0), own0), ((busy1, total1), own1)) = (before, after);
    let per_cpu = (total1 - total0) as f64 / cpus() as f64;
    let foreign = (busy1 - busy0).saturating_sub(own1 - own0) as f64;
    if per_cpu > 0.0 {
        foreign / per_cpu
    } else {
        0.0
    }
}
