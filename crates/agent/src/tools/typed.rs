//! Typed tool arguments: a tool's arguments are one serde struct, and the JSON Schema
//! the model sees is derived from it (schemars), so the schema and the parsing cannot
//! drift apart. A [`TypedTool`] is a [`Tool`]: the registry sends the derived schema
//! and hands the tool its arguments already parsed, or the model an error that names the
//! argument and says what was expected.

use async_trait::async_trait;
use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde::Deserialize;
use serde::de::{DeserializeOwned, Deserializer, Error as _};
use serde_json::{Map, Value};
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolSchema, ToolTraits};

use smallebot_core::rules::permission::CallSubject;

use super::call_view::CallView;
use super::tool::Tool;
use smallebot_application::ports::Args;

/// A tool whose arguments are the serde struct [`TypedTool::Args`]: doc comments on its
/// fields become the parameters' descriptions, `Option` fields are optional, and
/// `#[serde(rename_all = "camelCase")]` gives the names the model uses. Every
/// `TypedTool` is a [`Tool`].
#[async_trait]
pub trait TypedTool: Send + Sync {
    /// The arguments (an object; a struct with no fields for a tool without any).
    type Args: DeserializeOwned + JsonSchema + Send;

    /// The name the model calls it by (PascalCase).
    fn name(&self) -> &str;

    /// What the tool does, for the model (asked once per registry build).
    fn description(&self) -> String;

    /// Whether it mutates anything and how it touches the task list.
    fn traits(&self) -> ToolTraits;

    /// An answer given before the arguments are read (e.g. a tool that needs a
    /// conversation, called outside one). Default: none.
    fn unavailable(&self, context: &ToolContext) -> Option<ToolOutcome> {
        let _ = context;
        None
    }

    /// The files a call with `args` writes if it succeeds (see [`Tool::written_paths`]).
    fn written_paths(&self, args: &Self::Args) -> Vec<String> {
        let _ = args;
        Vec::new()
    }

    /// What the permission gate sees of a call with `args`, or the tool's refusal
    /// (see [`Tool::permission`]). Default: the tool's name alone.
    ///
    /// # Errors
    /// The tool's refusal, as the call's result.
    fn permission(&self, args: &Self::Args) -> Result<CallView, ToolOutcome> {
        let _ = args;
        Ok(CallView::new(CallSubject::tool(TypedTool::name(self))))
    }

    /// Runs the call with its parsed arguments.
    async fn run(&self, args: Self::Args, context: &ToolContext) -> ToolOutcome;
}

#[async_trait]
impl<T: TypedTool> Tool for T {
    fn name(&self) -> &str {
        TypedTool::name(self)
    }

    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: TypedTool::name(self).to_owned(),
            description: self.description(),
            parameters: parameters_schema::<T::Args>(),
        }
    }

    fn traits(&self) -> ToolTraits {
        TypedTool::traits(self)
    }

    fn written_paths(&self, args: &Args) -> Vec<String> {
        args.parse_as::<T::Args>()
            .map(|parsed| TypedTool::written_paths(self, &parsed))
            .unwrap_or_default()
    }

    fn permission(&self, args: &Args, context: &ToolContext) -> Result<CallView, ToolOutcome> {
        if let Some(answer) = self.unavailable(context) {
            return Err(answer);
        }
        match args.parse_as::<T::Args>() {
            Ok(parsed) => TypedTool::permission(self, &parsed),
            Err(error) => Err(ToolOutcome::error(error.to_string())),
        }
    }

    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome {
        if let Some(answer) = self.unavailable(context) {
            return answer;
        }
        match args.parse_as::<T::Args>() {
            Ok(parsed) => self.run(parsed, context).await,
            Err(error) => ToolOutcome::error(error.to_string()),
        }
    }
}

/// The parameters schema of `A` as an OpenAI function expects it: `type: object`,
/// `properties` (with the fields' doc comments as descriptions), `required`, and
/// `additionalProperties: false`; no `$schema`, `title`, `definitions`, `default` or `format`, and
/// an optional field typed as its value (not as "value or null"). The struct's own doc
/// comment is not sent: the tool's description is.
#[must_use]
pub fn parameters_schema<A: JsonSchema>() -> Value {
    let generator = SchemaSettings::draft07()
        .with(|settings| {
            settings.inline_subschemas = true;
            settings.meta_schema = None;
        })
        .into_generator();
    let schema: Schema = generator.into_root_schema_for::<A>();
    let mut value = schema.to_value();
    if let Value::Object(object) = &mut value {
        object.remove("title");
        object.remove("$schema");
        object.remove("description");
        object
            .entry("properties")
            .or_insert_with(|| Value::Object(Map::new()));
        if let Some(Value::Object(properties)) = object.get_mut("properties") {
            properties.values_mut().for_each(not_nullable);
        }
        object.insert("additionalProperties".into(), Value::Bool(false));
    }
    value
}

/// An optional property's `"type": ["string", "null"]` becomes `"type": "string"`
/// (leaving it out is how the model omits it), and the `default` serde's
/// `#[serde(default)]` adds goes (the description says what omitting it means), and so
/// does the `format` of an integer (`uint64`: `minimum` says it).
fn not_nullable(property: &mut Value) {
    let Value::Object(property) = property else {
        return;
    };
    if let Some(Value::Array(types)) = property.get("type") {
        let rest: Vec<Value> = types.iter().filter(|t| *t != "null").cloned().collect();
        if let [single] = rest.as_slice() {
            property.insert("type".into(), single.clone());
        }
    }
    property.remove("default");
    property.remove("format");
}

/// A string argument that also accepts a number (`1` means `"1"`), trimmed. Use with
/// `#[serde(deserialize_with = "typed::lenient_string")]` and
/// `#[schemars(with = "String")]`.
///
/// # Errors
/// Neither a string nor a number.
pub fn lenient_string<'de, D: Deserializer<'de>>(deserializer: D) -> Result<String, D::Error> {
    match Value::deserialize(deserializer)? {
        Value::String(s) => Ok(s.trim().to_owned()),
        Value::Number(n) => Ok(n.to_string()),
        other => Err(D::Error::custom(format!("must be a string, got {other}"))),
    }
}

/// An optional non-negative integer that also accepts a numeric string; absent or null
/// is `None`. Use with `#[serde(default, deserialize_with = "typed::lenient_u64")]` and
/// `#[schemars(with = "Option<u64>")]`.
///
/// # Errors
/// Not a non-negative integer.
pub fn lenient_u64<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value = Value::deserialize(deserializer)?;
    let parsed = match &value {
        Value::Null => return Ok(None),
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse::<u64>().ok(),
        _ => None,
    };
    parsed
        .map(Some)
        .ok_or_else(|| D::Error::custom(format!("must be a non-negative integer, got {value}")))
}

/// An optional list of strings that also accepts one string (a list of one) and
/// numbers as items; absent or null is empty. Use with `#[serde(default,
/// deserialize_with = "typed::lenient_strings")]`.
///
/// # Errors
/// Not a string or a list of strings and numbers.
pub fn lenient_strings<'de, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Vec<String>, D::Error> {
    let wrong = |got: &Value| D::Error::custom(format!("must be a list of strings, got {got}"));
    match Value::deserialize(deserializer)? {
        Value::Null => Ok(Vec::new()),
        Value::String(s) => Ok(vec![s]),
        Value::Array(items) => items
            .iter()
            .map(|item| match item {
                Value::String(s) => Ok(s.clone()),
                Value::Number(n) => Ok(n.to_string()),
                other => Err(wrong(other)),
            })
            .collect(),
        other => Err(wrong(&other)),
    }
}

/// The arguments of a tool that takes none (anything sent is ignored).
#[derive(Debug, Clone, Copy, Default, Deserialize, JsonSchema)]
pub struct NoArgs {}

#[cfg(test)]
mod tests {
    use super::*;

    /// Arguments with every kind of field the converted tools use.
    #[derive(Debug, Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct Sample {
        /// The id.
        #[serde(deserialize_with = "lenient_string")]
        #[schemars(with = "String")]
        task_id: String,
        /// Optional words.
        #[serde(default)]
        words: Option<String>,
        /// Optional ids.
        #[serde(default, deserialize_with = "lenient_strings")]
        #[schemars(with = "Option<Vec<String>>")]
        ids: Vec<String>,
    }

    fn parse(text: &str) -> Result<Sample, String> {
        Args::parse("T", text)
            .map_err(|e| e.to_string())?
            .parse_as::<Sample>()
            .map_err(|e| e.to_string())
    }

    #[test]
    fn the_schema_is_what_an_openai_function_expects() {
        let schema = parameters_schema::<Sample>();
        assert_eq!(
            schema,
            serde_json::json!({
                "type": "object",
                "properties": {
                    "taskId": {"type": "string", "description": "The id."},
                    "words": {"type": "string", "description": "Optional words."},
                    "ids": {"type": "array", "items": {"type": "string"}, "description": "Optional ids."}
                },
                "required": ["taskId"],
                "additionalProperties": false
            })
        );
        assert_eq!(
            parameters_schema::<NoArgs>(),
            serde_json::json!({"type": "object", "properties": {}, "additionalProperties": false})
        );
    }

    #[test]
    fn errors_name_the_argument_and_what_was_expected() {
        let cases = [
            ("{}", "Error: T: missing required parameter 'taskId'"),
            (
                r#"{"taskId":null}"#,
                "Error: T: missing required parameter 'taskId'",
            ),
            (
                r#"{"taskId":true}"#,
                "Error: T: parameter 'taskId' must be a string, got true",
            ),
            (
                r#"{"taskId":"1","words":5}"#,
                "Error: T: parameter 'words' must be a string, got 5",
            ),
            (
                r#"{"taskId":"1","ids":[1,false]}"#,
                "Error: T: parameter 'ids' must be a list of strings, got false",
            ),
        ];
        for (text, expected) in cases {
            assert_eq!(parse(text).unwrap_err(), expected, "{text}");
        }
        let lenient = parse(r#"{"taskId":7,"ids":"3","other":1,"words":null}"#).unwrap();
        assert_eq!(lenient.task_id, "7");
        assert_eq!(lenient.ids, ["3"]);
        assert_eq!(lenient.words, None);
    }
}
