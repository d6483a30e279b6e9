//! Issue 27: every built-in tool's arguments are a typed struct, and the model gets a
//! schema derived from it — the same names, types, required lists and descriptions the
//! hand-written schemas had — and a bad argument gets an error that names it and says
//! what was expected.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod common;
mod tasks_support;

use serde_json::{Value, json};
use smallebot_application::SendOptions;
use smallebot_core::entities::TurnStatus;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, ToolCallSpec};
use tasks_support::{harness, result_of};

const TASK_ID: &str = "The task's id as returned by AddTask or ListTasks, e.g. \"1\".";

/// The parameters the model must see for each converted tool (what the hand-written
/// schemas said before they were derived).
fn expected_parameters() -> Vec<(&'static str, Value)> {
    let none = json!({"type": "object", "properties": {}, "additionalProperties": false});
    let task_id = json!({
        "type": "object",
        "properties": {"taskId": {"type": "string", "description": TASK_ID}},
        "required": ["taskId"],
        "additionalProperties": false
    });
    let path_and_content = |content: &str| {
        json!({
            "type": "object",
            "properties": {
                "path": {
                    "type": "string",
                    "description": "File path relative to the workspace root, e.g. 'notes/todo.md'."
                },
                "content": {"type": "string", "description": content}
            },
            "required": ["path", "content"],
            "additionalProperties": false
        })
    };
    vec![
        (
            "WriteFile",
            path_and_content("The complete new content of the file."),
        ),
        ("AppendFile", path_and_content("The text to append.")),
        (
            "CreateDirectory",
            json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "Directory path relative to the workspace root, e.g. 'notes/2024'."
                    }
                },
                "required": ["path"],
                "additionalProperties": false
            }),
        ),
        ("ListTasks", none.clone()),
        (
            "AddTask",
            json!({
                "type": "object",
                "properties": {
                    "title": {"type": "string", "description": "Short title of the step, e.g. \"Load the CSV data\"."},
                    "description": {"type": "string", "description": "Optional details: what to do and what done looks like."},
                    "dependsOn": {
                        "type": "array",
                        "items": {"type": "string"},
                        "description": "Optional ids of existing tasks that must be done before this one starts."
                    }
                },
                "required": ["title"],
                "additionalProperties": false
            }),
        ),
        ("StartTask", task_id.clone()),
        (
            "CompleteTask",
            json!({
                "type": "object",
                "properties": {
                    "taskId": {"type": "string", "description": TASK_ID},
                    "notes": {"type": "string", "description": "Optional short notes on the outcome, e.g. \"Loaded 1000 rows\"."}
                },
                "required": ["taskId"],
                "additionalProperties": false
            }),
        ),
        ("UncompleteTask", task_id.clone()),
        ("DeleteTask", task_id),
        ("GetCurrentTime", none),
        (
            "GrepContent",
            json!({
                "type": "object",
                "properties": {
                    "pattern": {
                        "type": "string",
                        "description": "Regular expression to search for, e.g. 'fn \\\\w+\\\\(' or '(?i)todo'."
                    },
                    "path": {
                        "type": "string",
                        "description": "File or directory relative to the workspace root to search (default: the whole workspace)."
                    },
                    "maxResults": {
                        "type": "integer",
                        "minimum": 1,
                        "maximum": 500,
                        "description": "Maximum number of matching lines to return (default 50, at most 500)."
                    }
                },
                "required": ["pattern"],
                "additionalProperties": false
            }),
        ),
        (
            "ExecuteCommand",
            json!({
                "type": "object",
                "properties": {
                    "command": {
                        "type": "string",
                        "description": "The command line, e.g. `ls -la` or `cargo test 2>&1 | tail -n 50`."
                    },
                    "workingDirectory": {
                        "type": "string",
                        "description": "Directory to run in, relative to the workspace root (default: the root)."
                    }
                },
                "required": ["command"],
                "additionalProperties": false
            }),
        ),
        (
            "ListFiles",
            json!({
                "type": "object",
                "properties": {
                    "path": {
                        "type": "string",
                        "description": "Directory relative to the workspace root (default: the root)."
                    }
                },
                "additionalProperties": false
            }),
        ),
    ]
}

/// The `function` of the tool called `name` in a recorded request.
fn function<'a>(request: &'a RecordedRequest, name: &str) -> &'a Value {
    let tools = request.body["tools"]
        .as_array()
        .expect("the request offers tools");
    tools
        .iter()
        .map(|tool| &tool["function"])
        .find(|function| function["name"] == name)
        .unwrap_or_else(|| panic!("{name} is not offered"))
}

#[tokio::test]
async fn the_model_sees_the_derived_schemas_and_a_bad_argument_is_named() {
    let h = harness().await;
    h.server.push_all([
        ScriptedResponse::tool_calls([
            ToolCallSpec::new("b1", "AddTask", r#"{"title": 7}"#),
            ToolCallSpec::new("b2", "AddTask", r#"{"title": "x", "dependsOn": {"a": 1}}"#),
            ToolCallSpec::new("b3", "StartTask", r#"{"taskId": null}"#),
            ToolCallSpec::new("b4", "CompleteTask", r#"{"taskId": "1", "notes": false}"#),
            ToolCallSpec::new("b5", "DeleteTask", r#"{"taskId": [1]}"#),
            ToolCallSpec::new("b6", "AddTask", r#"{"title": "Lenient", "dependsOn": "1"}"#),
            ToolCallSpec::new("b7", "StartTask", r#"{"taskId": 1, "extra": true}"#),
            ToolCallSpec::new("b8", "GetCurrentTime", r#"{"ignored": 1}"#),
            ToolCallSpec::new("b9", "ListFiles", r#"{"path": true}"#),
            ToolCallSpec::new("b10", "WriteFile", r#"{"content": "x"}"#),
            ToolCallSpec::new("b11", "AppendFile", r#"{"path": "a", "content": 3}"#),
            ToolCallSpec::new("b12", "CreateDirectory", r#"{"path": null}"#),
            ToolCallSpec::new("b13", "ReadFile", r#"{"path": "a", "offset": -1}"#),
            ToolCallSpec::new("b14", "ReadConversationData", r#"{"limit": "many"}"#),
            ToolCallSpec::new("b15", "SearchHistory", r#"{"days": 2}"#),
            ToolCallSpec::new("b16", "GrepContent", r#"{"path": "sub"}"#),
            ToolCallSpec::new(
                "b17",
                "GrepContent",
                r#"{"pattern": "x", "maxResults": "lots"}"#,
            ),
            ToolCallSpec::new(
                "b18",
                "GrepContent",
                r#"{"pattern": "zzz", "maxResults": "3"}"#,
            ),
            ToolCallSpec::new("b19", "ExecuteCommand", r#"{"command": 5}"#),
            ToolCallSpec::new(
                "b20",
                "ExecuteCommand",
                r#"{"command": "ls", "workingDirectory": ["sub"]}"#,
            ),
        ]),
        ScriptedResponse::text("Done."),
    ]);
    let c = h.conversation().await;
    let outcome = h
        .service
        .send(c, "Go", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed, "{:?}", outcome.error);
    let requests = h.server.requests();
    assert_eq!(requests.len(), 2);

    for (name, parameters) in expected_parameters() {
        let function = function(&requests[0], name);
        assert_eq!(function["parameters"], parameters, "{name}");
        assert!(
            function["description"]
                .as_str()
                .is_some_and(|d| d.len() > 20),
            "{name}: {function}"
        );
    }

    let results = [
        (
            "b1",
            "Error: AddTask: parameter 'title' must be a string, got 7",
        ),
        (
            "b2",
            "Error: AddTask: parameter 'dependsOn' must be a list of strings, got {\"a\":1}",
        ),
        (
            "b3",
            "Error: StartTask: missing required parameter 'taskId'",
        ),
        (
            "b4",
            "Error: CompleteTask: parameter 'notes' must be a string, got false",
        ),
        (
            "b5",
            "Error: DeleteTask: parameter 'taskId' must be a string, got [1]",
        ),
        (
            "b9",
            "Error: ListFiles: parameter 'path' must be a string, got true",
        ),
        ("b10", "Error: WriteFile: missing required parameter 'path'"),
        (
            "b11",
            "Error: AppendFile: parameter 'content' must be a string, got 3",
        ),
        (
            "b12",
            "Error: CreateDirectory: missing required parameter 'path'",
        ),
        (
            "b13",
            "Error: ReadFile: parameter 'offset' must be a non-negative integer, got -1",
        ),
        (
            "b14",
            "Error: ReadConversationData: parameter 'limit' must be a non-negative integer, got \"many\"",
        ),
        (
            "b15",
            "Error: SearchHistory: missing required parameter 'query'",
        ),
        (
            "b16",
            "Error: GrepContent: missing required parameter 'pattern'",
        ),
        (
            "b17",
            "Error: GrepContent: parameter 'maxResults' must be a non-negative integer, got \"lots\"",
        ),
        (
            "b19",
            "Error: ExecuteCommand: parameter 'command' must be a string, got 5",
        ),
        (
            "b20",
            "Error: ExecuteCommand: parameter 'workingDirectory' must be a string, got [\"sub\"]",
        ),
    ];
    for (id, expected) in results {
        assert_eq!(result_of(&requests[1], id), expected, "{id}");
    }
    // The leniency the hand-written parsing had stays: one id for a list, a number
    // for an id, unknown arguments ignored.
    assert!(
        result_of(&requests[1], "b6").contains(r#""dependsOn":["1"]"#)
            || result_of(&requests[1], "b6").contains("Unknown dependency"),
        "{}",
        result_of(&requests[1], "b6")
    );
    assert!(
        !result_of(&requests[1], "b7").starts_with("Error: StartTask: parameter"),
        "{}",
        result_of(&requests[1], "b7")
    );
    assert!(
        !result_of(&requests[1], "b8").starts_with("Error"),
        "{}",
        result_of(&requests[1], "b8")
    );
    // A numeric string is a number of results, as before.
    assert!(
        result_of(&requests[1], "b18").starts_with("No matches for /zzz/"),
        "{}",
        result_of(&requests[1], "b18")
    );
}
