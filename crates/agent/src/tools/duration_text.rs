//! Durations in the words tool results and questions use.

use std::time::Duration;

/// `60 s`, or `1.5 s` for a fractional duration.
pub(crate) fn seconds(duration: Duration) -> String {
    if duration.subsec_millis() == 0 {
        format!("{} s", duration.as_secs())
    } else {
        format!("{:.1} s", duration.as_secs_f64())
    }
}
