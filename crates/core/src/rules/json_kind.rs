//! The JSON type of a value as a message names it ("a string", "an array", …): the
//! configuration files' errors and the MCP client's argument checks say it the same way.

use serde_json::Value;

/// The JSON type of `value`, with its article.
#[must_use]
pub fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn every_json_type_is_named_with_its_article() {
        let cases = [
            (json!(null), "null"),
            (json!(true), "a boolean"),
            (json!(1.5), "a number"),
            (json!("x"), "a string"),
            (json!([1]), "an array"),
            (json!({"a": 1}), "an object"),
        ];
        for (value, named) in cases {
            assert_eq!(kind_of(&value), named, "{value}");
        }
    }
}
