//! The page's question about a call a permission rule asks about: any tool's call shown
//! by name and arguments with the rule that asked; "Allow in this conversation" lets the
//! same call run again unasked; "Deny" refuses. Headless Chromium against a real server
//! and the scripted model; screenshots under `target/ui-screenshots/`.

use crate::browser_support;
use crate::common;

use std::sync::Arc;

use browser_support::{Chromium, click, eval, open_page, screenshot, send, wait_for};
use common::Server;
use smallebot_agent::tools::{ToolRegistry, Workspace, WriteFile, permission_argument};
use smallebot_core::rules::permission::{PermissionRule, PermissionRules};
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};
use smallebot_web::WebConfirmer;

#[tokio::test]
async fn the_dialog_asks_about_any_tool_names_the_rule_and_remembers_the_conversation() {
    let Some(browser) = Chromium::start("permission dialog").await else {
        return;
    };
    let workspace = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(workspace.path().join("notes")).unwrap();
    let confirmer = Arc::new(WebConfirmer::new());
    let rules = PermissionRules {
        ask: vec![PermissionRule::parse("WriteFile(notes/**)", &permission_argument).unwrap()],
        ..PermissionRules::default()
    };
    let root = Workspace::new(workspace.path().to_path_buf());
    let asking = Arc::clone(&confirmer);
    let s = Server::start_custom(
        move |agent| {
            agent
                .tools(ToolRegistry::new().with(Arc::new(WriteFile::new(root))))
                .permissions(rules)
                .confirmer(asking)
        },
        |web| web.confirmations(confirmer),
    )
    .await;
    let write = |call: &str, path: &str| {
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            call,
            "WriteFile",
            serde_json::json!({ "path": path, "content": "x" }).to_string(),
        )])
    };
    s.model.push_all([
        write("w1", "notes/a.md"),
        write("w2", "notes/a.md"),
        write("w3", "notes/b.md"),
        ScriptedResponse::text("Done."),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "write the notes").await;
    wait_for(&page, "!document.getElementById('confirm-dialog').hidden").await;
    let text = |id: &str| format!("document.getElementById('{id}').textContent");
    assert_eq!(
        eval(&page, &text("confirm-question")).await,
        "The assistant wants to call WriteFile:"
    );
    let shown = eval(&page, &text("confirm-command")).await;
    let shown = shown.as_str().unwrap();
    assert!(
        shown.starts_with("WriteFile {") && shown.contains(r#""path":"notes/a.md""#),
        "{shown}"
    );
    assert_eq!(
        eval(&page, &text("confirm-rule-text")).await,
        "ask WriteFile(notes/**)"
    );
    screenshot(&page, "permission-question").await;
    click(&page, "#confirm-conversation").await;
    // The same call again runs unasked; another path is asked about: denied.
    wait_for(
        &page,
        "document.querySelector('[data-call-id=\"w2\"]')?.classList.contains('ok')",
    )
    .await;
    wait_for(&page, "!document.getElementById('confirm-dialog').hidden && document.getElementById('confirm-command').textContent.includes('notes/b.md')").await;
    click(&page, "#confirm-deny").await;
    wait_for(
        &page,
        "document.querySelector('[data-call-id=\"w3\"]')?.classList.contains('denied')",
    )
    .await;
    assert!(workspace.path().join("notes/a.md").is_file());
    assert!(!workspace.path().join("notes/b.md").exists());
    browser.close().await;
}
