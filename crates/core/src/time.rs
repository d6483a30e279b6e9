//! Timestamps: UTC, stored as RFC 3339 text with milliseconds.

use chrono::{DateTime, SecondsFormat, Utc};

/// A UTC instant.
pub type Timestamp = DateTime<Utc>;

/// Formats a timestamp the way it is stored: RFC 3339, milliseconds, `Z`.
#[must_use]
pub fn format_timestamp(at: &Timestamp) -> String {
    at.to_rfc3339_opts(SecondsFormat::Millis, true)
}

/// Parses a stored timestamp.
///
/// # Errors
/// Returns the chrono parse error when `text` is not RFC 3339.
pub fn parse_timestamp(text: &str) -> Result<Timestamp, chrono::ParseError> {
    DateTime::parse_from_rfc3339(text).map(|t| t.with_timezone(&Utc))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn formats_with_milliseconds_and_z() {
        let at = Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap();
        assert_eq!(format_timestamp(&at), "2026-01-02T03:04:05.000Z");
        assert_eq!(parse_timestamp("2026-01-02T03:04:05.000Z").unwrap(), at);
    }
}
