//! Reading an optional JSON file and parsing it with positions in the errors.

use std::io::ErrorKind;
use std::path::Path;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;

use super::ConfigError;
use super::keys::{Keys, normalize_keys};

/// Reads `file` as UTF-8 text; `Ok(None)` when it does not exist (defaults apply).
///
/// Any other failure (a directory, no permission, invalid UTF-8) is an error naming the
/// file: a file that exists is never silently ignored.
pub(crate) fn read_optional(file: &Path) -> Result<Option<String>, ConfigError> {
    match std::fs::read_to_string(file) {
        Ok(text) => Ok(Some(text)),
        Err(error) if error.kind() == ErrorKind::NotFound => Ok(None),
        Err(source) => Err(ConfigError::Io {
            file: file.to_path_buf(),
            source,
        }),
    }
}

/// Parses `text` (the content of `file`) into `T`.
///
/// A leading UTF-8 byte order mark is skipped. Syntax errors, wrong types and unknown
/// enum values become [`ConfigError::Invalid`] with the line and column `serde_json`
/// reports.
pub(crate) fn parse<T: DeserializeOwned>(text: &str, file: &Path) -> Result<T, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    serde_json::from_str(text).map_err(|error| invalid(&error, file))
}

/// As [`parse`], with the keys checked first against those of `T` (its serde fields,
/// read from its JSON Schema; see [`Keys::of`]), `what` naming the object in messages:
/// unknown keys are errors, keys match case-insensitively (see [`normalize_keys`]).
pub(crate) fn parse_keys<T: DeserializeOwned + JsonSchema>(
    text: &str,
    file: &Path,
    what: &str,
) -> Result<T, ConfigError> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let normalized = normalize_keys(text, file, &Keys::of::<T>(what))?;
    parse(&normalized, file)
}

/// Maps a `serde_json` error to [`ConfigError::Invalid`], without the
/// " at line L column C" suffix that the variant's own position replaces.
fn invalid(error: &serde_json::Error, file: &Path) -> ConfigError {
    let (line, column) = (error.line(), error.column());
    let full = error.to_string();
    let suffix = format!(" at line {line} column {column}");
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    ConfigError::Invalid {
        file: file.to_path_buf(),
        line,
        column,
        message,
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used)]

    use super::*;

    #[derive(Debug, serde::Deserialize)]
    struct Probe {
        #[allow(dead_code)]
        n: u32,
    }

    #[test]
    fn syntax_error_has_position_and_no_duplicate_suffix() {
        let file = Path::new("/h/x.json");
        let err = parse::<Probe>("{\n  \"n\": 1,\n    }\n", file).unwrap_err();
        let ConfigError::Invalid {
            line,
            column,
            message,
            ..
        } = &err
        else {
            panic!("expected Invalid, got {err:?}");
        };
        assert_eq!((*line, *column), (3, 5));
        assert!(!message.contains(" at line "), "{message}");
        assert!(err.to_string().starts_with("/h/x.json:3:5: "), "{err}");
    }

    #[test]
    fn byte_order_mark_is_skipped() {
        let probe: Probe = parse("\u{feff}{\"n\": 7}", Path::new("x.json")).unwrap();
        assert_eq!(probe.n, 7);
    }

    #[test]
    fn missing_file_is_none_and_directory_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        assert!(
            read_optional(&dir.path().join("absent.json"))
                .unwrap()
                .is_none()
        );
        let err = read_optional(dir.path()).unwrap_err();
        assert!(matches!(err, ConfigError::Io { .. }), "{err:?}");
    }
}
