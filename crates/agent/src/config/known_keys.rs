//! The keys a configuration object may have, read from its serde struct: the struct
//! derives `schemars::JsonSchema` beside `Deserialize`, and its schema's properties are
//! the keys (as serde names them: `rename_all`, `rename`). A field added to the struct
//! is a known key at once; there is no second list to keep in step.
//!
//! A field whose value is an object with fields of its own (a struct, or a list or an
//! option of one) is checked too; messages call it by its
//! `#[schemars(extend("x-what" = "…"))]` text, else by its key. Maps
//! (`BTreeMap<String, _>`) take any keys.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The schema extension that names a nested object in messages ("the command limits").
pub(crate) const WHAT: &str = "x-what";

/// The keys an object may have, and the keys of the objects under some of them (its
/// value, or each element of its array value).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Keys {
    /// What the object is, for messages ("the agent settings").
    pub(crate) what: String,
    /// The known keys, as documented (camelCase), in alphabetical order.
    pub(crate) names: Vec<String>,
    /// Keys whose values hold objects with keys of their own.
    pub(crate) nested: Vec<(String, Keys)>,
}

impl Keys {
    /// The keys of the serde struct `T`, called `what` in messages.
    pub(crate) fn of<T: JsonSchema>(what: &str) -> Self {
        let generator = SchemaSettings::draft07()
            .with(|settings| settings.inline_subschemas = true)
            .into_generator();
        let schema = generator.into_root_schema_for::<T>();
        let properties = object_properties(schema.as_value()).unwrap_or_default();
        Self::from_properties(what, &properties)
    }

    /// The keys of an object schema's `properties`.
    fn from_properties(what: &str, properties: &Map<String, Value>) -> Self {
        let names = properties.keys().cloned().collect();
        let nested = properties
            .iter()
            .filter_map(|(name, schema)| {
                let inner = object_properties(schema)?;
                let what = named(schema).unwrap_or(name);
                Some((name.clone(), Self::from_properties(what, &inner)))
            })
            .collect();
        Self {
            what: what.to_owned(),
            names,
            nested,
        }
    }
}

/// The `properties` of the object `schema` describes: itself, the items of an array,
/// or one of the alternatives of an option (`anyOf` with `null`). `None` for anything
/// else, maps included.
fn object_properties(schema: &Value) -> Option<Map<String, Value>> {
    let Value::Object(schema) = schema else {
        return None;
    };
    if let Some(Value::Object(properties)) = schema.get("properties") {
        return Some(properties.clone());
    }
    let items = schema.get("items").into_iter();
    let alternatives = ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|key| schema.get(*key)?.as_array())
        .flatten();
    items.chain(alternatives).find_map(object_properties)
}

/// The `x-what` name of a nested object's schema (looked for where its properties are).
fn named(schema: &Value) -> Option<&str> {
    let Value::Object(object) = schema else {
        return None;
    };
    if let Some(what) = object.get(WHAT).and_then(Value::as_str) {
        return Some(what);
    }
    let items = object.get("items").into_iter();
    let alternatives = ["anyOf", "oneOf", "allOf"]
        .iter()
        .filter_map(|key| object.get(*key)?.as_array())
        .flatten();
    items.chain(alternatives).find_map(named)
}

#[cfg(test)]
mod tests {
    #![allow(dead_code)]

    use std::collections::BTreeMap;

    use serde::Deserialize;

    use super::*;

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    #[schemars(extend("x-what" = "a model"))]
    struct Model {
        id: String,
        base_url: Option<String>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct Limits {
        cpu_seconds: Option<i64>,
    }

    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct Settings {
        context_window: Option<i64>,
        models: Vec<Model>,
        limits: Option<Limits>,
        by_tool: Option<BTreeMap<String, i64>>,
        #[serde(rename = "type")]
        kind: Option<String>,
    }

    /// `Settings` with one more field, and nothing else changed.
    #[derive(Deserialize, JsonSchema)]
    #[serde(rename_all = "camelCase")]
    struct SettingsWithANewField {
        context_window: Option<i64>,
        models: Vec<Model>,
        limits: Option<Limits>,
        by_tool: Option<BTreeMap<String, i64>>,
        #[serde(rename = "type")]
        kind: Option<String>,
        brand_new_setting: Option<bool>,
    }

    fn names(keys: &Keys) -> Vec<&str> {
        keys.names.iter().map(String::as_str).collect()
    }

    #[test]
    fn the_keys_are_the_structs_serde_names_and_nested_objects_have_their_own() {
        let keys = Keys::of::<Settings>("the settings");
        assert_eq!(keys.what, "the settings");
        assert_eq!(
            names(&keys),
            ["byTool", "contextWindow", "limits", "models", "type"]
        );
        // A list of structs, an optional struct; a map takes any keys.
        let nested: Vec<(&str, &str, Vec<&str>)> = keys
            .nested
            .iter()
            .map(|(key, inner)| (key.as_str(), inner.what.as_str(), names(inner)))
            .collect();
        assert_eq!(
            nested,
            [
                ("limits", "limits", vec!["cpuSeconds"]),
                ("models", "a model", vec!["baseUrl", "id"]),
            ]
        );
    }

    #[test]
    fn a_field_added_to_the_struct_is_a_known_key_without_any_table() {
        let before = Keys::of::<Settings>("the settings");
        let after = Keys::of::<SettingsWithANewField>("the settings");
        assert!(!before.names.iter().any(|n| n == "brandNewSetting"));
        assert!(after.names.iter().any(|n| n == "brandNewSetting"));
        assert_eq!(after.names.len(), before.names.len() + 1);
        assert_eq!(after.nested, before.nested);
        // And the check accepts it in a file, in any case.
        let text = r#"{"BrandNewSetting": true}"#;
        let file = std::path::Path::new("/h/x.json");
        assert_eq!(
            super::super::keys::normalize_keys(text, file, &after).ok(),
            Some(r#"{"brandNewSetting": true}"#.to_owned())
        );
        assert!(super::super::keys::normalize_keys(text, file, &before).is_err());
    }
}
