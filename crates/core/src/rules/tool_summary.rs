//! What a tool call is shown as in one line: its key argument (`ExecuteCommand`'s
//! command, a file tool's path, a search's query) and how long it has been running.

use std::time::Duration;

/// The arguments that say best what a call does, most telling first.
const KEY_ARGUMENTS: &[&str] = &[
    "command",
    "path",
    "file_path",
    "query",
    "url",
    "pattern",
    "name",
    "title",
];

/// The argument that says what a tool call does, on one line: the first of
/// the usual argument names (`command`, `path`, `query`, …) the call has as a string, else its first string argument; only
/// its first line, with `…` when more follow. `None` when `arguments` is not a JSON
/// object or holds no non-empty string.
#[must_use]
pub fn key_argument(arguments: &str) -> Option<String> {
    let serde_json::Value::Object(fields) = serde_json::from_str(arguments).ok()? else {
        return None;
    };
    let value = KEY_ARGUMENTS
        .iter()
        .find_map(|key| fields.get(*key).and_then(non_empty))
        .or_else(|| fields.values().find_map(non_empty))?;
    let mut lines = value.trim().lines();
    let first = lines.next().unwrap_or_default().to_owned();
    Some(if lines.next().is_some() {
        format!("{first} …")
    } else {
        first
    })
}

/// The text of a string value with more than white space.
fn non_empty(value: &serde_json::Value) -> Option<&str> {
    value.as_str().filter(|s| !s.trim().is_empty())
}

/// A duration as a person reads it on a status line: `0.4s` under ten seconds,
/// `12s`, `3m 05s`, `1h 02m`.
#[must_use]
pub fn elapsed(duration: Duration) -> String {
    let seconds = duration.as_secs();
    match seconds {
        0..10 => format!("{:.1}s", duration.as_secs_f64()),
        10..60 => format!("{seconds}s"),
        60..3600 => format!("{}m {:02}s", seconds / 60, seconds % 60),
        _ => format!("{}h {:02}m", seconds / 3600, seconds % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_argument_is_the_most_telling_string() {
        let cases: &[(&str, Option<&str>)] = &[
            (r#"{"command":"ls -la"}"#, Some("ls -la")),
            (r#"{"timeout":5,"command":"make test"}"#, Some("make test")),
            (r#"{"content":"x","path":"notes.md"}"#, Some("notes.md")),
            (r#"{"query":"walrus","limit":3}"#, Some("walrus")),
            (r#"{"zone":"UTC"}"#, Some("UTC")),
            (r#"{"command":"echo a\necho b"}"#, Some("echo a …")),
            (r#"{"path":"  "}"#, None),
            (r#"{"n":1}"#, None),
            ("{}", None),
            ("not json", None),
            ("[1,2]", None),
        ];
        for (arguments, expected) in cases {
            assert_eq!(key_argument(arguments).as_deref(), *expected, "{arguments}");
        }
    }

    #[test]
    fn durations_read_as_people_say_them() {
        let cases = [
            (Duration::from_millis(400), "0.4s"),
            (Duration::from_millis(9_949), "9.9s"),
            (Duration::from_secs(12), "12s"),
            (Duration::from_secs(185), "3m 05s"),
            (Duration::from_secs(3_720), "1h 02m"),
        ];
        for (duration, expected) in cases {
            assert_eq!(elapsed(duration), expected, "{duration:?}");
        }
    }
}
