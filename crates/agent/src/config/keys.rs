//! Strict keys for the configuration files: every key must be known (a misspelt key is
//! an error naming the nearest known one, never silently ignored), and keys match
//! case-insensitively (`ToolResultMaxLength` is `toolResultMaxLength`), as the original
//! system's reader did. A key given twice, in any case, is an error. The known keys
//! are those of the serde struct the file is parsed into ([`Keys::of`]).
//!
//! The check runs on the parsed JSON; keys written in another case are then rewritten
//! in the text itself (same length, so every position `serde_json` reports afterwards
//! is still the file's).

use std::path::Path;

use serde_json::Value;
use smallebot_core::rules::json_kind::kind_of;

use super::ConfigError;
pub(crate) use super::known_keys::Keys;

/// `text` (valid JSON, the content of `file`) with its keys checked against `keys` and
/// rewritten to their documented spelling.
///
/// # Errors
/// [`ConfigError::Invalid`] with the key's position for an unknown key (with the
/// nearest known key when one is close), a key given twice, or a file that is not an
/// object.
pub(crate) fn normalize_keys(text: &str, file: &Path, keys: &Keys) -> Result<String, ConfigError> {
    let value: Value = match serde_json::from_str(text) {
        Ok(value) => value,
        // Syntax errors are reported by the typed parse, with their position.
        Err(_) => return Ok(text.to_owned()),
    };
    if !value.is_object() {
        let (line, column) = first_position(text);
        return Err(ConfigError::Invalid {
            file: file.to_path_buf(),
            line,
            column,
            message: format!(
                "expected a JSON object with {}, found {}",
                keys.what,
                kind_of(&value)
            ),
        });
    }
    let mut renames: Vec<(String, String)> = Vec::new();
    check(&value, keys, text, file, &mut renames)?;
    let mut out = text.to_owned();
    for (written, canonical) in renames {
        out = rename_key(&out, &written, &canonical);
    }
    Ok(out)
}

/// `value` (an object inside `text`, the content of `file`) with its keys checked
/// against `keys` and renamed to their documented spelling; errors point at the key in
/// `text`.
///
/// # Errors
/// As [`normalize_keys`].
pub(crate) fn checked_object(
    value: &Value,
    text: &str,
    file: &Path,
    keys: &Keys,
) -> Result<serde_json::Map<String, Value>, ConfigError> {
    let mut renames = Vec::new();
    check(value, keys, text, file, &mut renames)?;
    let Value::Object(map) = value else {
        return Ok(serde_json::Map::new());
    };
    Ok(map
        .iter()
        .map(|(key, inner)| {
            let canonical = renames
                .iter()
                .find(|(written, _)| written == key)
                .map_or_else(|| key.clone(), |(_, c)| c.clone());
            (canonical, inner.clone())
        })
        .collect())
}

/// An error at `key`'s last occurrence in `text`.
pub(crate) fn error_at_key(text: &str, file: &Path, key: &str, message: String) -> ConfigError {
    at_key(text, file, key, message)
}

/// An error at the string `value` written after the key `key`'s last occurrence in
/// `text` (at the key when the string is not found as written).
pub(crate) fn error_at_value(
    text: &str,
    file: &Path,
    key: &str,
    value: &str,
    message: String,
) -> ConfigError {
    let after = key_offsets(text, key).last().copied();
    let quoted = serde_json::to_string(value).unwrap_or_default();
    let found = after.and_then(|from| text[from..].find(&quoted).map(|at| from + at));
    match found {
        Some(at) => {
            let (line, column) = position(text, at);
            ConfigError::Invalid {
                file: file.to_path_buf(),
                line,
                column,
                message,
            }
        }
        None => at_key(text, file, key, message),
    }
}

fn check(
    value: &Value,
    keys: &Keys,
    text: &str,
    file: &Path,
    renames: &mut Vec<(String, String)>,
) -> Result<(), ConfigError> {
    let Value::Object(map) = value else {
        return Ok(());
    };
    let mut seen: Vec<(&str, &str)> = Vec::new();
    for (written, inner) in map {
        let Some(canonical) = keys
            .names
            .iter()
            .map(String::as_str)
            .find(|name| name.eq_ignore_ascii_case(written))
        else {
            let hint = nearest(written, &keys.names).map_or_else(
                || format!(" (known keys: {})", keys.names.join(", ")),
                |near| format!("; did you mean \"{near}\"?"),
            );
            return Err(at_key(
                text,
                file,
                written,
                format!("unknown key \"{written}\" in {}{hint}", keys.what),
            ));
        };
        if let Some((_, other)) = seen.iter().find(|(c, _)| *c == canonical) {
            // Named in file order, at the later one.
            let offset = |key: &str| key_offsets(text, key).last().copied().unwrap_or(0);
            let (first, second) = if offset(other) <= offset(written) {
                (*other, written.as_str())
            } else {
                (written.as_str(), *other)
            };
            return Err(at_key(
                text,
                file,
                second,
                format!(
                    "the key \"{canonical}\" is given twice (as \"{first}\" and \"{second}\"); keep one"
                ),
            ));
        }
        seen.push((canonical, written));
        if written != canonical && !renames.iter().any(|(w, _)| w == written) {
            renames.push((written.clone(), canonical.to_owned()));
        }
        if let Some((_, inner_keys)) = keys.nested.iter().find(|(name, _)| *name == canonical) {
            match inner {
                Value::Array(items) => {
                    for item in items {
                        check(item, inner_keys, text, file, renames)?;
                    }
                }
                other => check(other, inner_keys, text, file, renames)?,
            }
        }
    }
    Ok(())
}

/// The known key closest to `written` by edit distance, when close enough to be a typo.
fn nearest<'a>(written: &str, names: &'a [String]) -> Option<&'a str> {
    let written = written.to_ascii_lowercase();
    names
        .iter()
        .map(|name| {
            (
                edit_distance(&written, &name.to_ascii_lowercase()),
                name.as_str(),
            )
        })
        .filter(|(distance, name)| *distance <= (name.len() / 3).clamp(1, 3))
        .min_by_key(|(distance, _)| *distance)
        .map(|(_, name)| name)
}

/// Levenshtein distance between two strings (by characters).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut previous: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut current = vec![i + 1];
        for (j, cb) in b.iter().enumerate() {
            let substitution = previous[j] + usize::from(ca != *cb);
            current.push(substitution.min(previous[j + 1] + 1).min(current[j] + 1));
        }
        previous = current;
    }
    previous[b.len()]
}

/// Byte offsets where `"key"` is written as a key (followed by `:`).
fn key_offsets(text: &str, key: &str) -> Vec<usize> {
    let quoted = format!("\"{key}\"");
    let mut found = Vec::new();
    let mut from = 0;
    while let Some(at) = text[from..].find(&quoted).map(|i| i + from) {
        let after = text[at + quoted.len()..].trim_start();
        let escaped = at > 0 && text.as_bytes()[at - 1] == b'\\';
        if after.starts_with(':') && !escaped {
            found.push(at);
        }
        from = at + quoted.len();
    }
    found
}

/// `text` with every key written `written` spelt `canonical` (same length).
fn rename_key(text: &str, written: &str, canonical: &str) -> String {
    let mut out = text.to_owned();
    for at in key_offsets(text, written) {
        out.replace_range(at + 1..at + 1 + written.len(), canonical);
    }
    out
}

fn at_key(text: &str, file: &Path, key: &str, message: String) -> ConfigError {
    let (line, column) = key_offsets(text, key)
        .last()
        .map_or_else(|| first_position(text), |at| position(text, *at));
    ConfigError::Invalid {
        file: file.to_path_buf(),
        line,
        column,
        message,
    }
}

fn first_position(text: &str) -> (usize, usize) {
    let at = text.len() - text.trim_start().len();
    position(text, at)
}

/// 1-based line and column of a byte offset.
fn position(text: &str, at: usize) -> (usize, usize) {
    let before = &text[..at];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

    use super::*;

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "camelCase")]
    #[schemars(extend("x-what" = "a model"))]
    struct Inner {
        id: String,
        base_url: String,
    }

    #[derive(serde::Deserialize, schemars::JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct Outer {
        require_command_confirmation: Option<bool>,
        context_window: Option<i64>,
        models: Option<Vec<Inner>>,
    }

    fn run(text: &str) -> Result<String, String> {
        let keys = Keys::of::<Outer>("the settings");
        normalize_keys(text, Path::new("/h/x.json"), &keys).map_err(|e| e.to_string())
    }

    #[test]
    fn keys_are_checked_and_rewritten() {
        let cases: &[(&str, Result<&str, &str>)] = &[
            (r#"{"contextWindow": 1}"#, Ok(r#"{"contextWindow": 1}"#)),
            (r#"{"contextwindow": 1}"#, Ok(r#"{"contextWindow": 1}"#)),
            (
                "{\n  \"models\": [{\"ID\": \"a\", \"BaseURL\": \"u\"}]\n}",
                Ok("{\n  \"models\": [{\"id\": \"a\", \"baseUrl\": \"u\"}]\n}"),
            ),
            (
                "{\n  \"requireCommandConfirmaton\": true\n}",
                Err(
                    "/h/x.json:2:3: unknown key \"requireCommandConfirmaton\" in the settings; did you mean \"requireCommandConfirmation\"?",
                ),
            ),
            (
                r#"{"colour": 1}"#,
                Err(
                    "/h/x.json:1:2: unknown key \"colour\" in the settings (known keys: contextWindow, models, requireCommandConfirmation)",
                ),
            ),
            (
                r#"{"models": [{"id": "a", "baseUrl": "u", "bseUrl": "v"}]}"#,
                Err("/h/x.json:1:41: unknown key \"bseUrl\" in a model; did you mean \"baseUrl\"?"),
            ),
            (
                r#"{"contextWindow": 1, "ContextWindow": 2}"#,
                Err(
                    "/h/x.json:1:22: the key \"contextWindow\" is given twice (as \"contextWindow\" and \"ContextWindow\"); keep one",
                ),
            ),
            (
                "  [1, 2]",
                Err("/h/x.json:1:3: expected a JSON object with the settings, found an array"),
            ),
            // A value that looks like a key is left alone.
            (
                r#"{"models": [{"id": "ContextWindow", "baseUrl": "u"}]}"#,
                Ok(r#"{"models": [{"id": "ContextWindow", "baseUrl": "u"}]}"#),
            ),
            // Syntax errors are left to the typed parse (it reports their position).
            ("{oops", Ok("{oops")),
        ];
        for (text, expected) in cases {
            let expected = expected.map(str::to_owned).map_err(str::to_owned);
            assert_eq!(run(text), expected, "{text}");
        }
    }

    #[test]
    fn edit_distance_and_nearest() {
        let cases = [
            ("kitten", "sitting", 3),
            ("", "abc", 3),
            ("same", "same", 0),
            ("ab", "ba", 2),
        ];
        for (a, b, d) in cases {
            assert_eq!(edit_distance(a, b), d, "{a} {b}");
        }
        let names = ["contextWindow".to_owned(), "models".to_owned()];
        assert_eq!(nearest("contxtWindow", &names), Some("contextWindow"));
        assert_eq!(nearest("xyz", &names), None);
    }
}
