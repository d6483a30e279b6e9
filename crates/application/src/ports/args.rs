//! A call's arguments object, and the error the model gets for arguments it got
//! wrong (a tool provider may read it as a typed struct).

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

/// A missing or mistyped argument; the message names it and says what is expected.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("Error: {0}")]
pub struct ArgError(pub String);

/// The arguments object of one call.
#[derive(Debug, Clone, Default)]
pub struct Args {
    tool: String,
    map: Map<String, Value>,
}

impl Args {
    /// Parses the model's argument text (empty text means `{}`).
    ///
    /// # Errors
    /// Invalid JSON or not an object.
    pub fn parse(tool: &str, text: &str) -> Result<Self, ArgError> {
        let text = text.trim();
        let value: Value = if text.is_empty() {
            Value::Object(Map::new())
        } else {
            serde_json::from_str(text).map_err(|e| {
                ArgError(format!(
                    "the arguments of {tool} are not valid JSON ({e}). Send a JSON object that \
                     matches the tool's parameters."
                ))
            })?
        };
        match value {
            Value::Object(map) => Ok(Self {
                tool: tool.to_owned(),
                map,
            }),
            other => Err(ArgError(format!(
                "the arguments of {tool} must be a JSON object, not {other}"
            ))),
        }
    }

    /// Arguments given as an object (a hook's `updatedInput`, say).
    #[must_use]
    pub fn from_map(tool: &str, map: Map<String, Value>) -> Self {
        Self {
            tool: tool.to_owned(),
            map,
        }
    }

    /// The tool these arguments are for.
    #[must_use]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// The raw object.
    #[must_use]
    pub fn as_map(&self) -> &Map<String, Value> {
        &self.map
    }

    /// The arguments as `A`. A missing (or null) required field, or a field of the
    /// wrong type, is an error that names it and says what was expected:
    /// `Tool: missing required parameter 'x'`, `Tool: parameter 'x' must be a string, got 5`.
    ///
    /// # Errors
    /// A field is missing or of the wrong type.
    pub fn parse_as<A: DeserializeOwned>(&self) -> Result<A, ArgError> {
        let value = Value::Object(self.as_map().clone());
        serde_path_to_error::deserialize(value).map_err(|error| {
            let field = match error.path().iter().next() {
                Some(serde_path_to_error::Segment::Map { key }) => Some(key.clone()),
                _ => None,
            };
            let message = error.inner().to_string();
            self.describe(field.as_deref(), &message)
        })
    }

    /// The error for `message` from serde about `field` (none: the object itself).
    fn describe(&self, field: Option<&str>, message: &str) -> ArgError {
        let tool = self.tool();
        let raw = field.and_then(|f| self.as_map().get(f));
        let missing = message
            .strip_prefix("missing field `")
            .and_then(|rest| rest.strip_suffix('`'));
        match (field, raw, missing) {
            (_, _, Some(name)) | (Some(name), None | Some(Value::Null), None) => {
                ArgError(format!("{tool}: missing required parameter '{name}'"))
            }
            (Some(name), Some(raw), None) => {
                if let Some(wording) = message.strip_prefix("must be ") {
                    return ArgError(format!("{tool}: parameter '{name}' must be {wording}"));
                }
                match message.rsplit_once(", expected ") {
                    Some((_, expected)) => ArgError(format!(
                        "{tool}: parameter '{name}' must be {expected}, got {raw}"
                    )),
                    None => ArgError(format!("{tool}: parameter '{name}' is invalid: {message}")),
                }
            }
            (None, _, None) => ArgError(format!("{tool}: invalid arguments: {message}")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_with_clear_errors() {
        assert!(Args::parse("T", "").unwrap().as_map().is_empty());
        let bad = Args::parse("T", "{not json").unwrap_err();
        assert!(bad.0.contains("not valid JSON"), "{bad}");
        assert!(
            Args::parse("T", "[1]")
                .unwrap_err()
                .0
                .contains("must be a JSON object")
        );
        let args = Args::parse("ReadFile", r#"{"path":"a"}"#).unwrap();
        assert_eq!(args.tool(), "ReadFile");
        assert_eq!(args.as_map()["path"], "a");
    }
}
