//! The time a write stamps on its rows.

use smallebot_core::time::{Timestamp, format_timestamp};

/// A moment and its stored text.
pub(crate) type Now = (Timestamp, String);

/// Now, truncated to the stored millisecond precision, and its stored text.
pub(crate) fn now() -> Now {
    use chrono::SubsecRound;
    let at = chrono::Utc::now().trunc_subsecs(3);
    let text = format_timestamp(&at);
    (at, text)
}
