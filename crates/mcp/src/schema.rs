//! Checking a call's arguments against the tool's JSON schema before it is sent: the
//! common keywords (`type`, `required`, `properties`, `additionalProperties`, `enum`,
//! `items`), so a model's mistake comes back at once with what to fix instead of as
//! the server's error.

use serde_json::Value;

use smallebot_core::rules::json_kind::kind_of;

/// Deepest nesting checked.
const MAX_DEPTH: usize = 32;

/// `Err` with the first problem (naming its path) when `value` does not fit `schema`.
pub(crate) fn check_arguments(schema: &Value, value: &Value) -> Result<(), String> {
    check(schema, value, "arguments", 0)
}

fn check(schema: &Value, value: &Value, path: &str, depth: usize) -> Result<(), String> {
    if depth > MAX_DEPTH {
        return Ok(());
    }
    if let Some(types) = schema.get("type") {
        let allowed: Vec<&str> = match types {
            Value::String(one) => vec![one.as_str()],
            Value::Array(many) => many.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        if !allowed.is_empty() && !allowed.iter().any(|t| is_type(value, t)) {
            return Err(format!(
                "{path} must be {} (got {})",
                allowed.join(" or "),
                kind_of(value)
            ));
        }
    }
    if let Some(Value::Array(choices)) = schema.get("enum")
        && !choices.contains(value)
    {
        let list: Vec<String> = choices.iter().map(Value::to_string).collect();
        return Err(format!("{path} must be one of {}", list.join(", ")));
    }
    if let Value::Object(object) = value {
        if let Some(Value::Array(required)) = schema.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    return Err(format!("{path}.{name} is required"));
                }
            }
        }
        let properties = schema.get("properties").and_then(Value::as_object);
        for (name, inner) in object {
            match properties.and_then(|p| p.get(name)) {
                Some(property) => check(property, inner, &format!("{path}.{name}"), depth + 1)?,
                None if schema.get("additionalProperties") == Some(&Value::Bool(false)) => {
                    let known: Vec<&str> = properties
                        .map(|p| p.keys().map(String::as_str).collect())
                        .unwrap_or_default();
                    return Err(format!(
                        "{path}.{name} is not a parameter of this tool (parameters: {})",
                        known.join(", ")
                    ));
                }
                None => {}
            }
        }
    }
    if let (Value::Array(items), Some(item_schema)) = (value, schema.get("items")) {
        for (index, item) in items.iter().enumerate() {
            check(item_schema, item, &format!("{path}[{index}]"), depth + 1)?;
        }
    }
    Ok(())
}

/// Whether `value` is of JSON schema type `kind` (unknown kinds pass).
fn is_type(value: &Value, kind: &str) -> bool {
    match kind {
        "object" => value.is_object(),
        "array" => value.is_array(),
        "string" => value.is_string(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "number" => value.is_number(),
        "integer" => {
            value.is_i64() || value.is_u64() || value.as_f64().is_some_and(|f| f.fract() == 0.0)
        }
        _ => true,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn schema_table() {
        let schema = json!({
            "type": "object",
            "properties": {
                "text": {"type": "string"},
                "count": {"type": "integer"},
                "mode": {"enum": ["a", "b"]},
                "tags": {"type": "array", "items": {"type": "string"}},
                "opt": {"type": ["string", "null"]}
            },
            "required": ["text"],
            "additionalProperties": false
        });
        let cases = [
            (json!({"text": "hi"}), None),
            (
                json!({"text": "hi", "count": 3, "mode": "b", "tags": ["x"], "opt": null}),
                None,
            ),
            (json!({"text": "hi", "count": 3.0}), None),
            (json!({}), Some("arguments.text is required")),
            (
                json!({"text": 5}),
                Some("arguments.text must be string (got a number)"),
            ),
            (
                json!({"text": "a", "count": 1.5}),
                Some("arguments.count must be integer"),
            ),
            (
                json!({"text": "a", "mode": "c"}),
                Some("arguments.mode must be one of \"a\", \"b\""),
            ),
            (
                json!({"text": "a", "tags": ["x", 1]}),
                Some("arguments.tags[1] must be string"),
            ),
            (
                json!({"text": "a", "other": 1}),
                Some("arguments.other is not a parameter of this tool (parameters: "),
            ),
            (
                json!("text"),
                Some("arguments must be object (got a string)"),
            ),
        ];
        for (value, expected) in cases {
            let got = check_arguments(&schema, &value);
            match expected {
                None => assert_eq!(got, Ok(()), "{value}"),
                Some(start) => {
                    let error = got.unwrap_err();
                    assert!(error.starts_with(start), "{value}: {error}");
                }
            }
        }
        // A schema without constraints accepts anything.
        assert_eq!(check_arguments(&json!({}), &json!({"any": 1})), Ok(()));
    }
}
