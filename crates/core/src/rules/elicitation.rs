//! MCP elicitation: a server asking the person for input during a tool call, with a
//! flat JSON Schema of primitive fields (the MCP spec's `requestedSchema`). The form's
//! fields ([`form_of`]), one line per field for a prompt ([`field_line`]), a typed
//! answer read for one field ([`read_field`]) and a whole answer checked
//! ([`check_content`]), and what became of the question ([`ElicitationOutcome`]).

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::json_kind::kind_of;

/// How long the person has to answer when mcp.json does not say
/// (`elicitationTimeoutSeconds`): 5 minutes.
pub const DEFAULT_ELICITATION_TIMEOUT_SECONDS: u64 = 300;

/// What one field accepts.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "camelCase")]
pub enum FieldKind {
    /// Text (`"type": "string"`), its length bounded when the schema says.
    Text {
        /// `minLength`.
        min_length: Option<u64>,
        /// `maxLength`.
        max_length: Option<u64>,
    },
    /// A number (`"number"`) or a whole number (`"integer"`), bounded when the schema
    /// says.
    Number {
        /// Whole numbers only.
        integer: bool,
        /// `minimum`.
        minimum: Option<f64>,
        /// `maximum`.
        maximum: Option<f64>,
    },
    /// Yes or no (`"boolean"`).
    Boolean,
    /// One of the listed values (`enum`, or `oneOf` of `const`s), each with its label.
    Choice {
        /// The values sent back.
        values: Vec<String>,
        /// What the person sees for each (`enumNames` or `oneOf[].title`; else the value).
        labels: Vec<String>,
    },
}

/// One field of an elicitation form.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FormField {
    /// The property's name (the key of the answer).
    pub name: String,
    /// Its `title`, if any.
    pub title: Option<String>,
    /// Its `description`, if any.
    pub description: Option<String>,
    /// What it accepts.
    pub kind: FieldKind,
    /// Whether the answer must have it (the schema's `required`).
    pub required: bool,
    /// Its `default`, if any (used when the person leaves it empty).
    pub default: Option<Value>,
}

/// The fields of a form, in the schema's order.
pub type Form = Vec<FormField>;

/// What became of one elicitation, as stored on the tool call and sent as an event.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ElicitationOutcome {
    /// The MCP server that asked.
    pub server: String,
    /// Its message to the person.
    pub message: String,
    /// What the person (or the client for them) did.
    pub action: ElicitationAction,
    /// The answer sent back, when accepted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content: Option<Map<String, Value>>,
}

/// The answer to an elicitation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ElicitationAction {
    /// The person answered (the content went to the server).
    Accepted,
    /// The person declined to answer (the call goes on without it).
    Declined,
    /// The person cancelled (the server should stop what it was doing).
    Cancelled,
    /// No answer in time: declined.
    TimedOut,
    /// No one could be asked (`run` without a terminal, a call outside a
    /// conversation): declined at once.
    NoOneToAsk,
}

impl ElicitationAction {
    /// The word shown on the tool call ("accepted", "timed out", …).
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Accepted => "accepted",
            Self::Declined => "declined",
            Self::Cancelled => "cancelled",
            Self::TimedOut => "declined (no answer in time)",
            Self::NoOneToAsk => "declined (no one to ask)",
        }
    }
}

/// The note a call's result gets for one elicitation, so the model and the stored
/// call (`conversations show`, the page's tool card) say what the person was asked and
/// answered: `[MCP server files asked the person "Which folder?": accepted {"dir":"a"}]`.
#[must_use]
pub fn outcome_note(outcome: &ElicitationOutcome) -> String {
    let answer = match &outcome.content {
        Some(content) => format!(" {}", Value::Object(content.clone())),
        None => String::new(),
    };
    format!(
        "[MCP server {} asked the person \"{}\": {}{answer}]",
        outcome.server,
        outcome.message,
        outcome.action.as_str()
    )
}

/// The form a `requestedSchema` describes: an object whose properties are strings,
/// numbers, integers, booleans or enums.
///
/// # Errors
/// What in the schema is not a form field (a nested object, an array, a missing
/// type), naming the property.
pub fn form_of(schema: &Value) -> Result<Form, String> {
    let properties = match schema.get("properties") {
        None => return Ok(Vec::new()),
        Some(Value::Object(properties)) => properties,
        Some(other) => {
            return Err(format!(
                "\"properties\" must be an object, got {}",
                kind_of(other)
            ));
        }
    };
    let required: Vec<&str> = schema
        .get("required")
        .and_then(Value::as_array)
        .map(|names| names.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    properties
        .iter()
        .map(|(name, property)| {
            Ok(FormField {
                name: name.clone(),
                title: text_of(property, "title"),
                description: text_of(property, "description"),
                kind: kind_of_property(name, property)?,
                required: required.contains(&name.as_str()),
                default: property.get("default").cloned(),
            })
        })
        .collect()
}

/// The string at `key` of `value`, if any.
fn text_of(value: &Value, key: &str) -> Option<String> {
    value.get(key).and_then(Value::as_str).map(str::to_owned)
}

/// What the property `name` accepts.
fn kind_of_property(name: &str, property: &Value) -> Result<FieldKind, String> {
    let strings = |key: &str| -> Option<Vec<String>> {
        property.get(key).and_then(Value::as_array).map(|items| {
            items
                .iter()
                .map(|v| v.as_str().map_or_else(|| v.to_string(), str::to_owned))
                .collect()
        })
    };
    if let Some(values) = strings("enum") {
        let labels = strings("enumNames").unwrap_or_else(|| values.clone());
        return Ok(FieldKind::Choice { values, labels });
    }
    if let Some(options) = property.get("oneOf").and_then(Value::as_array) {
        let values: Vec<String> = options
            .iter()
            .filter_map(|o| o.get("const").and_then(Value::as_str).map(str::to_owned))
            .collect();
        let labels = options
            .iter()
            .zip(&values)
            .map(|(o, v)| text_of(o, "title").unwrap_or_else(|| v.clone()))
            .collect();
        return Ok(FieldKind::Choice { values, labels });
    }
    let bound = |key: &str| property.get(key).and_then(Value::as_f64);
    let length = |key: &str| property.get(key).and_then(Value::as_u64);
    match property.get("type").and_then(Value::as_str) {
        Some("string") => Ok(FieldKind::Text {
            min_length: length("minLength"),
            max_length: length("maxLength"),
        }),
        Some(kind @ ("number" | "integer")) => Ok(FieldKind::Number {
            integer: kind == "integer",
            minimum: bound("minimum"),
            maximum: bound("maximum"),
        }),
        Some("boolean") => Ok(FieldKind::Boolean),
        Some(other) => Err(format!(
            "field \"{name}\" has type \"{other}\"; a form field is a string, number, \
             integer, boolean or enum"
        )),
        None => Err(format!("field \"{name}\" has no \"type\"")),
    }
}

/// One line describing `field` for a prompt: `name — Title: description (a number,
/// required, default 3)`, the choices listed.
#[must_use]
pub fn field_line(field: &FormField) -> String {
    let mut line = field.title.clone().unwrap_or_else(|| field.name.clone());
    if let Some(description) = &field.description {
        line.push_str(": ");
        line.push_str(description);
    }
    let mut notes = vec![match &field.kind {
        FieldKind::Text { .. } => "text".to_owned(),
        FieldKind::Number { integer: true, .. } => "a whole number".to_owned(),
        FieldKind::Number { .. } => "a number".to_owned(),
        FieldKind::Boolean => "yes or no".to_owned(),
        FieldKind::Choice { values, labels } => {
            let choices: Vec<String> = values
                .iter()
                .zip(labels)
                .map(|(v, l)| {
                    if v == l {
                        v.clone()
                    } else {
                        format!("{v} ({l})")
                    }
                })
                .collect();
            format!("one of: {}", choices.join(", "))
        }
    }];
    if field.required {
        notes.push("required".to_owned());
    }
    if let Some(default) = &field.default {
        let shown = default
            .as_str()
            .map_or_else(|| default.to_string(), str::to_owned);
        notes.push(format!("default {shown}"));
    }
    format!("{line} ({})", notes.join(", "))
}

/// The value of `field` the person typed as `text`: `None` when left empty (the
/// default, if any, stands in; an empty required field without one is an error).
///
/// # Errors
/// Why `text` is not a value of the field (said for the person, who is asked again).
pub fn read_field(field: &FormField, text: &str) -> Result<Option<Value>, String> {
    let text = text.trim();
    if text.is_empty() {
        return match (&field.default, field.required) {
            (Some(default), _) => Ok(Some(default.clone())),
            (None, true) => Err(format!("{} is required", field.name)),
            (None, false) => Ok(None),
        };
    }
    let value = match &field.kind {
        FieldKind::Text { .. } => Value::String(text.to_owned()),
        FieldKind::Number { .. } => {
            let number: f64 = text
                .parse()
                .map_err(|_| format!("{}: \"{text}\" is not a number", field.name))?;
            serde_json::Number::from_f64(number)
                .map(|n| match n.as_f64() {
                    #[allow(clippy::cast_possible_truncation)]
                    Some(f) if f.fract() == 0.0 && f.abs() < 9.0e15 => Value::from(f as i64),
                    _ => Value::Number(n),
                })
                .ok_or_else(|| format!("{}: \"{text}\" is not a finite number", field.name))?
        }
        FieldKind::Boolean => match text.to_ascii_lowercase().as_str() {
            "y" | "yes" | "true" => Value::Bool(true),
            "n" | "no" | "false" => Value::Bool(false),
            _ => return Err(format!("{}: answer yes or no", field.name)),
        },
        FieldKind::Choice { values, labels } => {
            // A choice by its value, its label, or its number in the list (from 1).
            let picked = text
                .parse::<usize>()
                .ok()
                .and_then(|n| n.checked_sub(1))
                .and_then(|i| values.get(i))
                .or_else(|| values.iter().find(|v| v.eq_ignore_ascii_case(text)))
                .or_else(|| {
                    labels
                        .iter()
                        .position(|l| l.eq_ignore_ascii_case(text))
                        .and_then(|i| values.get(i))
                });
            match picked {
                Some(value) => Value::String(value.clone()),
                None => {
                    return Err(format!(
                        "{}: \"{text}\" is not one of {}",
                        field.name,
                        values.join(", ")
                    ));
                }
            }
        }
    };
    check_value(field, &value).map(|()| Some(value))
}

/// Whether `value` is a value of `field` (type, bounds, choices).
///
/// # Errors
/// Why not, naming the field.
pub fn check_value(field: &FormField, value: &Value) -> Result<(), String> {
    let name = &field.name;
    match (&field.kind, value) {
        (
            FieldKind::Text {
                min_length,
                max_length,
            },
            Value::String(text),
        ) => {
            let length = text.chars().count() as u64;
            if min_length.is_some_and(|min| length < min)
                || max_length.is_some_and(|max| length > max)
            {
                return Err(format!(
                    "{name}: {length} characters; give {}..={}",
                    min_length.unwrap_or(0),
                    max_length.map_or_else(|| "any".to_owned(), |m| m.to_string())
                ));
            }
            Ok(())
        }
        (
            FieldKind::Number {
                integer,
                minimum,
                maximum,
            },
            Value::Number(number),
        ) => {
            let n = number.as_f64().unwrap_or(f64::NAN);
            if *integer && !(number.is_i64() || number.is_u64()) {
                return Err(format!("{name}: {number} is not a whole number"));
            }
            if minimum.is_some_and(|min| n < min) || maximum.is_some_and(|max| n > max) {
                return Err(format!(
                    "{name}: {number} is out of range ({}..={})",
                    minimum.map_or_else(|| "any".to_owned(), |m| m.to_string()),
                    maximum.map_or_else(|| "any".to_owned(), |m| m.to_string())
                ));
            }
            Ok(())
        }
        (FieldKind::Boolean, Value::Bool(_)) => Ok(()),
        (FieldKind::Choice { values, .. }, Value::String(text)) if values.contains(text) => Ok(()),
        (FieldKind::Choice { values, .. }, other) => Err(format!(
            "{name}: {other} is not one of {}",
            values.join(", ")
        )),
        (kind, other) => Err(format!(
            "{name}: expected {}, got {}",
            match kind {
                FieldKind::Text { .. } => "a string",
                FieldKind::Number { .. } => "a number",
                _ => "a boolean",
            },
            kind_of(other)
        )),
    }
}

/// A whole answer (`content`, as a web form sends it) checked against `form`: every
/// required field present, each value of its field's type, no unknown key; a missing
/// field with a default gets it.
///
/// # Errors
/// Every problem, joined with `; `.
pub fn check_content(
    form: &Form,
    content: &Map<String, Value>,
) -> Result<Map<String, Value>, String> {
    let mut problems = Vec::new();
    let mut checked = Map::new();
    for key in content.keys() {
        if !form.iter().any(|f| &f.name == key) {
            problems.push(format!("{key} is not a field of the form"));
        }
    }
    for field in form {
        match content.get(&field.name).filter(|v| !v.is_null()) {
            Some(value) => match check_value(field, value) {
                Ok(()) => {
                    checked.insert(field.name.clone(), value.clone());
                }
                Err(problem) => problems.push(problem),
            },
            None => match (&field.default, field.required) {
                (Some(default), _) => {
                    checked.insert(field.name.clone(), default.clone());
                }
                (None, true) => problems.push(format!("{} is required", field.name)),
                (None, false) => {}
            },
        }
    }
    if problems.is_empty() {
        Ok(checked)
    } else {
        Err(problems.join("; "))
    }
}

#[cfg(test)]
#[path = "elicitation_tests.rs"]
mod tests;
