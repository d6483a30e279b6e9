//! Tools describe themselves: what a call mutates and which files it writes come from
//! the tool, so plan tracking never matches tool names.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use serde_json::json;
use smallebot_agent::config::TerminalSettings;
use smallebot_agent::tools::{
    ExecuteCommand, GetCurrentTime, ToolRegistry, Workspace, task_tools, workspace_tools,
};
use smallebot_application::ports::{DenyAll, PlanAccess, ToolExecutor, ToolInvocation};
use smallebot_core::tasks::TaskStore;
use smallebot_infrastructure::FileTaskStore;

fn registry(root: &std::path::Path) -> ToolRegistry {
    let tasks: Arc<dyn TaskStore> = Arc::new(FileTaskStore::new(root.join("tasks")));
    let shell = ExecuteCommand::new(
        TerminalSettings::default(),
        Workspace::new(root.join("ws")),
        Arc::new(DenyAll),
    )
    .unwrap();
    workspace_tools(root.join("ws"))
        .into_iter()
        .chain(task_tools(&tasks))
        .fold(
            ToolRegistry::new()
                .with(Arc::new(GetCurrentTime))
                .with(Arc::new(shell)),
            ToolRegistry::with,
        )
}

fn call(name: &str, arguments: serde_json::Value) -> ToolInvocation {
    ToolInvocation {
        call_id: "c".into(),
        name: name.into(),
        arguments: arguments.to_string(),
    }
}

#[test]
fn each_tool_declares_what_it_does_and_writes() {
    let dir = tempfile::tempdir().unwrap();
    let tools = registry(dir.path());
    let ws = std::path::absolute(dir.path().join("ws")).unwrap();
    let ws = ws.to_string_lossy();
    // (call, mutating, plan access, written paths)
    let cases: Vec<(ToolInvocation, bool, PlanAccess, Vec<String>)> = vec![
        (
            call("GetCurrentTime", json!({})),
            false,
            PlanAccess::None,
            vec![],
        ),
        (
            call("ReadFile", json!({"path": "a.txt"})),
            false,
            PlanAccess::None,
            vec![],
        ),
        (
            call("GrepContent", json!({"pattern": "x"})),
            false,
            PlanAccess::None,
            vec![],
        ),
        (
            call(
                "WriteFile",
                json!({"path": "notes/../a.md", "content": "x"}),
            ),
            true,
            PlanAccess::None,
            vec![format!("{ws}/a.md")],
        ),
        (
            call("AppendFile", json!({"path": "log.txt", "content": "x"})),
            true,
            PlanAccess::None,
            vec![format!("{ws}/log.txt")],
        ),
        (
            call("CreateDirectory", json!({"path": "out"})),
            true,
            PlanAccess::None,
            vec![format!("{ws}/out")],
        ),
        (
            call(
                "ExecuteCommand",
                json!({"command": "sudo tee a.txt < x; echo hi > /dev/null", "workingDirectory": "sub"}),
            ),
            true,
            PlanAccess::None,
            vec![format!("{ws}/sub/a.txt")],
        ),
        (
            call("ListTasks", json!({})),
            false,
            PlanAccess::Reads,
            vec![],
        ),
        (
            call("AddTask", json!({"title": "t"})),
            true,
            PlanAccess::Edits,
            vec![],
        ),
        (
            call("DeleteTask", json!({"taskId": "1"})),
            true,
            PlanAccess::Edits,
            vec![],
        ),
    ];
    for (invocation, mutating, plan, written) in cases {
        let effects = tools.effects(&invocation).expect(&invocation.name);
        assert_eq!(
            (
                effects.traits.mutating,
                effects.traits.plan,
                effects.written_paths
            ),
            (mutating, plan, written),
            "{}",
            invocation.name
        );
    }
    assert!(tools.effects(&call("NoSuchTool", json!({}))).is_none());
}
