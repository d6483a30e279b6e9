use super::*;
use serde_json::json;

fn schema() -> Value {
    json!({
        "type": "object",
        "properties": {
            "name": {"type": "string", "title": "Name", "description": "Who you are", "maxLength": 5},
            "age": {"type": "integer", "minimum": 0, "maximum": 150},
            "ratio": {"type": "number"},
            "ok": {"type": "boolean", "default": true},
            "color": {"type": "string", "enum": ["r", "g"], "enumNames": ["Red", "Green"]},
            "size": {"type": "string", "oneOf": [{"const": "s", "title": "Small"}, {"const": "l"}]}
        },
        "required": ["name", "age"]
    })
}

fn field(form: &Form, name: &str) -> FormField {
    form.iter().find(|f| f.name == name).cloned().unwrap()
}

#[test]
fn the_schema_gives_one_field_per_property() {
    let form = form_of(&schema()).unwrap();
    assert_eq!(form.len(), 6);
    let name = field(&form, "name");
    assert!(name.required);
    assert_eq!(name.title.as_deref(), Some("Name"));
    assert_eq!(
        field(&form, "color").kind,
        FieldKind::Choice {
            values: vec!["r".into(), "g".into()],
            labels: vec!["Red".into(), "Green".into()]
        }
    );
    assert_eq!(
        field(&form, "size").kind,
        FieldKind::Choice {
            values: vec!["s".into(), "l".into()],
            labels: vec!["Small".into(), "l".into()]
        }
    );
    assert!(!field(&form, "ok").required);
}

#[test]
fn a_field_that_is_not_primitive_is_refused_by_name() {
    let cases = [
        (
            json!({"properties": {"a": {"type": "object"}}}),
            "field \"a\" has type \"object\"",
        ),
        (
            json!({"properties": {"b": {}}}),
            "field \"b\" has no \"type\"",
        ),
        (
            json!({"properties": []}),
            "\"properties\" must be an object",
        ),
    ];
    for (schema, expected) in cases {
        let error = form_of(&schema).unwrap_err();
        assert!(error.contains(expected), "{error}");
    }
    assert_eq!(form_of(&json!({"type": "object"})).unwrap(), Vec::new());
}

#[test]
fn each_line_says_title_description_type_choices_and_default() {
    let form = form_of(&schema()).unwrap();
    let cases = [
        ("name", "Name: Who you are (text, required)"),
        ("age", "age (a whole number, required)"),
        ("ratio", "ratio (a number)"),
        ("ok", "ok (yes or no, default true)"),
        ("color", "color (one of: r (Red), g (Green))"),
    ];
    for (name, line) in cases {
        assert_eq!(field_line(&field(&form, name)), line);
    }
}

/// What reading a typed answer gives: the value, or a part of the reason.
type Read = Result<Option<Value>, &'static str>;

#[test]
fn typed_answers_are_read_or_refused_with_the_reason() {
    let form = form_of(&schema()).unwrap();
    let cases: [(&str, &str, Read); 14] = [
        ("name", "Ann", Ok(Some(json!("Ann")))),
        ("name", "", Err("name is required")),
        ("name", "Annabel", Err("name: 7 characters")),
        ("age", "42", Ok(Some(json!(42)))),
        ("age", "4.5", Err("not a whole number")),
        ("age", "old", Err("\"old\" is not a number")),
        ("age", "200", Err("out of range")),
        ("ratio", "0.5", Ok(Some(json!(0.5)))),
        ("ratio", "", Ok(None)),
        ("ok", "", Ok(Some(json!(true)))),
        ("ok", "No", Ok(Some(json!(false)))),
        ("ok", "maybe", Err("answer yes or no")),
        ("color", "green", Ok(Some(json!("g")))),
        ("color", "3", Err("is not one of r, g")),
    ];
    for (name, text, expected) in cases {
        let read = read_field(&field(&form, name), text);
        match (read, expected) {
            (Ok(value), Ok(want)) => assert_eq!(value, want, "{name} {text}"),
            (Err(error), Err(want)) => assert!(error.contains(want), "{name} {text}: {error}"),
            (got, want) => panic!("{name} {text}: got {got:?}, want {want:?}"),
        }
    }
    assert_eq!(
        read_field(&field(&form, "color"), "1").unwrap(),
        Some(json!("r"))
    );
}

#[test]
fn a_whole_answer_is_checked_and_defaults_filled_in() {
    let form = form_of(&schema()).unwrap();
    let content = |v: Value| v.as_object().cloned().unwrap();
    let checked = check_content(&form, &content(json!({"name": "Ann", "age": 3}))).unwrap();
    assert_eq!(
        Value::Object(checked),
        json!({"name": "Ann", "age": 3, "ok": true})
    );
    let cases = [
        (json!({"age": 3}), "name is required"),
        (
            json!({"name": 5, "age": 3}),
            "name: expected a string, got a number",
        ),
        (
            json!({"name": "A", "age": "3"}),
            "age: expected a number, got a string",
        ),
        (
            json!({"name": "A", "age": 3, "color": "blue"}),
            "color: \"blue\" is not one of r, g",
        ),
        (
            json!({"name": "A", "age": 3, "extra": 1}),
            "extra is not a field of the form",
        ),
    ];
    for (answer, expected) in cases {
        let error = check_content(&form, &content(answer)).unwrap_err();
        assert!(error.contains(expected), "{error}");
    }
}

#[test]
fn each_outcome_is_noted_with_what_was_asked_and_answered() {
    let outcome = |action, content: Option<Value>| ElicitationOutcome {
        server: "files".into(),
        message: "Which folder?".into(),
        action,
        content: content.and_then(|c| c.as_object().cloned()),
    };
    let cases = [
        (
            outcome(ElicitationAction::Accepted, Some(json!({"dir": "a"}))),
            r#"[MCP server files asked the person "Which folder?": accepted {"dir":"a"}]"#,
        ),
        (
            outcome(ElicitationAction::TimedOut, None),
            r#"[MCP server files asked the person "Which folder?": declined (no answer in time)]"#,
        ),
        (
            outcome(ElicitationAction::NoOneToAsk, None),
            r#"[MCP server files asked the person "Which folder?": declined (no one to ask)]"#,
        ),
        (
            outcome(ElicitationAction::Cancelled, None),
            r#"[MCP server files asked the person "Which folder?": cancelled]"#,
        ),
    ];
    for (outcome, note) in cases {
        assert_eq!(outcome_note(&outcome), note);
    }
}
