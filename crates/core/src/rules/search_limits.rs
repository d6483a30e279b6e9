//! The limits of a history search, shared by the `SearchHistory` tool, `smallebot
//! conversations search`, the chat REPL's `/search` and the web API's `GET /api/search`:
//! how many matches are shown, and the `days` window turned into a starting instant.

use crate::time::Timestamp;

/// Matches shown when no maximum is given.
pub const DEFAULT_MAX_RESULTS: u32 = 10;
/// The most matches one search shows; larger requests are clamped.
pub const MAX_RESULTS: u32 = 50;
/// The longest `days` window accepted (about a hundred years).
pub const MAX_DAYS: u64 = 36_500;

/// The number of matches to show: `requested` clamped to `1..=MAX_RESULTS`, or
/// [`DEFAULT_MAX_RESULTS`] when absent.
#[must_use]
pub fn clamp_max_results(requested: Option<u64>) -> u32 {
    requested.map_or(DEFAULT_MAX_RESULTS, |n| {
        u32::try_from(n.clamp(1, u64::from(MAX_RESULTS))).unwrap_or(MAX_RESULTS)
    })
}

/// A `days` search window outside `1..=MAX_DAYS`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
#[error("days must be between 1 and {MAX_DAYS} (omit it to search all time), got {days}")]
pub struct InvalidDays {
    /// The value given.
    pub days: u64,
}

/// The instant `days` days before `now`, for a search's `since`
/// ([`crate::entities::SearchQuery::since`]).
///
/// # Errors
/// [`InvalidDays`] when `days` is outside `1..=MAX_DAYS`.
pub fn since_days_ago(days: u64, now: Timestamp) -> Result<Timestamp, InvalidDays> {
    let invalid = InvalidDays { days };
    if !(1..=MAX_DAYS).contains(&days) {
        return Err(invalid);
    }
    let days = i64::try_from(days).map_err(|_| invalid)?;
    now.checked_sub_signed(chrono::Duration::days(days))
        .ok_or(invalid)
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn max_results_are_clamped_or_defaulted() {
        let cases: &[(Option<u64>, u32)] = &[
            (None, DEFAULT_MAX_RESULTS),
            (Some(0), 1),
            (Some(1), 1),
            (Some(7), 7),
            (Some(u64::from(MAX_RESULTS)), MAX_RESULTS),
            (Some(500), MAX_RESULTS),
            (Some(u64::MAX), MAX_RESULTS),
        ];
        for &(requested, expected) in cases {
            assert_eq!(clamp_max_results(requested), expected, "{requested:?}");
        }
    }

    #[test]
    fn days_become_an_instant_or_an_error() {
        let now = chrono::Utc.with_ymd_and_hms(2026, 3, 10, 12, 0, 0).unwrap();
        let cases: &[(u64, Option<Timestamp>)] = &[
            (0, None),
            (
                1,
                Some(chrono::Utc.with_ymd_and_hms(2026, 3, 9, 12, 0, 0).unwrap()),
            ),
            (
                2,
                Some(chrono::Utc.with_ymd_and_hms(2026, 3, 8, 12, 0, 0).unwrap()),
            ),
            (
                MAX_DAYS,
                Some(now - chrono::Duration::days(i64::try_from(MAX_DAYS).unwrap())),
            ),
            (MAX_DAYS + 1, None),
            (u64::MAX, None),
        ];
        for &(days, expected) in cases {
            match expected {
                Some(instant) => assert_eq!(since_days_ago(days, now), Ok(instant), "{days}"),
                None => assert_eq!(since_days_ago(days, now), Err(InvalidDays { days })),
            }
        }
    }

    #[test]
    fn an_invalid_window_says_the_range_and_the_way_out() {
        let now = chrono::Utc.with_ymd_and_hms(2026, 3, 10, 12, 0, 0).unwrap();
        assert_eq!(
            since_days_ago(0, now).unwrap_err().to_string(),
            "days must be between 1 and 36500 (omit it to search all time), got 0"
        );
    }
}
