//! Reading tool arguments with errors the model can act on.

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

    fn mistyped(&self, name: &str, expected: &str, got: &Value) -> ArgError {
        ArgError(format!(
            "{}: parameter '{name}' must be {expected}, got {got}",
            self.tool
        ))
    }

    /// A required string.
    ///
    /// # Errors
    /// Missing or not a string.
    pub fn string(&self, name: &str) -> Result<&str, ArgError> {
        match self.map.get(name) {
            Some(Value::String(s)) => Ok(s),
            None | Some(Value::Null) => Err(ArgError(format!(
                "{}: missing required parameter '{name}'",
                self.tool
            ))),
            Some(other) => Err(self.mistyped(name, "a string", other)),
        }
    }

    /// An optional string.
    ///
    /// # Errors
    /// Present but not a string.
    pub fn opt_string(&self, name: &str) -> Result<Option<&str>, ArgError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s)),
            Some(other) => Err(self.mistyped(name, "a string", other)),
        }
    }

    /// An optional non-negative integer (a numeric string is accepted).
    ///
    /// # Errors
    /// Present but not a non-negative integer.
    pub fn opt_u64(&self, name: &str) -> Result<Option<u64>, ArgError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n.as_u64().map(Some).ok_or_else(|| {
                self.mistyped(name, "a non-negative integer", &Value::Number(n.clone()))
            }),
            Some(Value::String(s)) => s.trim().parse::<u64>().map(Some).map_err(|_| {
                self.mistyped(name, "a non-negative integer", &Value::String(s.clone()))
            }),
            Some(other) => Err(self.mistyped(name, "a non-negative integer", other)),
        }
    }

    /// An optional list of strings (a single string counts as a list of one).
    ///
    /// # Errors
    /// Present but not strings.
    pub fn opt_strings(&self, name: &str) -> Result<Vec<String>, ArgError> {
        match self.map.get(name) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::String(s)) => Ok(vec![s.clone()]),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    other => Err(self.mistyped(name, "a list of strings", other)),
                })
                .collect(),
            Some(other) => Err(self.mistyped(name, "a list of strings", other)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parse_and_read_with_clear_errors() {
        assert!(Args::parse("T", "").unwrap().as_map().is_empty());
        let bad = Args::parse("T", "{not json").unwrap_err();
        assert!(bad.0.contains("not valid JSON"), "{bad}");
        assert!(
            Args::parse("T", "[1]")
                .unwrap_err()
                .0
                .contains("must be a JSON object")
        );
        let args = Args::parse(
            "ReadFile",
            r#"{"path":"a","n":3,"s":"7","bad":true,"list":["x",2]}"#,
        )
        .unwrap();
        assert_eq!(args.string("path").unwrap(), "a");
        assert!(
            args.string("missing")
                .unwrap_err()
                .0
                .contains("missing required parameter 'missing'")
        );
        assert!(args.string("n").unwrap_err().0.contains("must be a string"));
        assert_eq!(args.opt_u64("n").unwrap(), Some(3));
        assert_eq!(args.opt_u64("s").unwrap(), Some(7));
        assert!(args.opt_u64("bad").is_err());
        assert_eq!(args.opt_u64("none").unwrap(), None);
        assert_eq!(args.opt_strings("list").unwrap(), ["x", "2"]);
        assert_eq!(args.opt_strings("path").unwrap(), ["a"]);
    }
}
