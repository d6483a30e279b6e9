//! Workspace file tools: clear errors for missing or mistyped arguments, schemas and
//! cancellation.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod workspace_fixture;

use smallebot_application::ports::{ToolExecutor, ToolInvocation};
use smallebot_core::entities::ToolCallStatus;
use workspace_fixture::Fixture;

#[tokio::test]
async fn missing_or_mistyped_arguments_are_errors() {
    let fx = Fixture::new();
    fx.write("f.txt", "file");
    let cases = [
        ("ReadFile", "{}", "missing required parameter 'path'"),
        ("ReadFile", r#"{"path": 5}"#, "'path' must be a string"),
        (
            "ReadFile",
            r#"{"path": "f.txt", "offset": "x"}"#,
            "'offset' must be a non-negative integer",
        ),
        (
            "ReadFile",
            r#"{"path": "f.txt", "offset": -1}"#,
            "'offset' must be a non-negative integer",
        ),
        (
            "ReadFile",
            r#"{"path": "f.txt", "limit": 0}"#,
            "'limit' must be at least 1",
        ),
        (
            "ReadFile",
            r#"{"path": "f.txt", "limit": 1.5}"#,
            "'limit' must be a non-negative integer",
        ),
        (
            "WriteFile",
            r#"{"path": "a"}"#,
            "missing required parameter 'content'",
        ),
        (
            "WriteFile",
            r#"{"content": "a"}"#,
            "missing required parameter 'path'",
        ),
        (
            "WriteFile",
            r#"{"path": "a", "content": 3}"#,
            "'content' must be a string",
        ),
        ("AppendFile", "{}", "missing required parameter 'path'"),
        (
            "AppendFile",
            r#"{"path": ["a"], "content": "x"}"#,
            "'path' must be a string",
        ),
        ("ListFiles", r#"{"path": true}"#, "'path' must be a string"),
        ("CreateDirectory", "{}", "missing required parameter 'path'"),
        (
            "CreateDirectory",
            r#"{"path": null}"#,
            "missing required parameter 'path'",
        ),
        ("GrepContent", "{}", "missing required parameter 'pattern'"),
        (
            "GrepContent",
            r#"{"pattern": ["x"]}"#,
            "'pattern' must be a string",
        ),
        (
            "GrepContent",
            r#"{"pattern": "x", "maxResults": -3}"#,
            "'maxResults' must be a non-negative integer",
        ),
        (
            "GrepContent",
            r#"{"pattern": "x", "path": {}}"#,
            "'path' must be a string",
        ),
        ("GrepContent", r#"{"pattern": ""}"#, "'pattern' is empty"),
        ("WriteFile", "{not json", "not valid JSON"),
        ("ListFiles", "[1]", "must be a JSON object"),
    ];
    for (tool, arguments, phrase) in cases {
        let outcome = fx.call_text(tool, arguments).await;
        assert_eq!(outcome.status, ToolCallStatus::Error, "{tool} {arguments}");
        assert!(
            outcome.content.starts_with("Error: ") && outcome.content.contains(phrase),
            "{tool} {arguments}: expected '{phrase}' in {}",
            outcome.content
        );
    }
    assert!(!fx.root.join("a").exists());
    assert_eq!(fx.read("f.txt"), "file");
}

#[tokio::test]
async fn schemas_are_pascal_case_objects() {
    let fx = Fixture::new();
    let schemas = fx.registry.schemas();
    let names: Vec<_> = schemas.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "ReadFile",
            "WriteFile",
            "AppendFile",
            "ListFiles",
            "CreateDirectory",
            "GrepContent"
        ]
    );
    for schema in fx.registry.schemas().iter() {
        assert_eq!(schema.parameters["type"], "object", "{}", schema.name);
        assert!(!schema.description.is_empty());
    }
}

#[tokio::test]
async fn a_cancelled_turn_cancels_the_call() {
    let fx = Fixture::new();
    let mut context = Fixture::context();
    context.cancel = tokio_util::sync::CancellationToken::new();
    context.cancel.cancel();
    let invocation = ToolInvocation {
        call_id: "c".into(),
        name: "ListFiles".into(),
        arguments: "{}".into(),
    };
    let outcome = fx.registry.execute(&invocation, &context).await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::Cancelled,
        "{}",
        outcome.content
    );
}
