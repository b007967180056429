//! Quiet planted panics: the unit tests that panic on purpose print nothing for those panics.
//!
//! Printing a panic means symbolising its backtrace, which under Miri costs about a minute
//! per panic. Every other panic still prints through the previous hook.

use std::panic;

/// Messages (or parts of them) of the panics the tests plant, and of the runtime's own
/// panics that the tests provoke on purpose.
const PLANTED: &[&str] = &[
    "sort test: ",
    "planted",
    "does not correctly implement a total order",
    "items than its length",
    "`par_split_at` and `par_len` disagree",
];

/// Installs, once per process, a panic hook that drops the planted panics' messages.
pub(crate) fn quiet_planted_panics() {
    static QUIET: std::sync::Once = std::sync::Once::new();
    QUIET.call_once(|| {
        let previous = panic::take_hook();
        panic::set_hook(Box::new(move |info| {
            let payload = info.payload();
            let message = payload.downcast_ref::<&str>().copied();
            let message = message.or(payload.downcast_ref::<String>().map(String::as_str));
            let planted = message.is_some_and(|m| PLANTED.iter().any(|p| m.contains(p)));
            if !planted {
                previous(info);
            }
        }));
    });
}
