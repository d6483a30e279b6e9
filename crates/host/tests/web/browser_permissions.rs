//! The page's question about a call a permission rule asks about: any tool's call shown
//! by name and arguments with the rule that asked; "Allow in this conversation" lets the
//! same call run again unasked; "Deny" refuses. "Always" adds a grant the Permissions
//! dialog lists, and its Revoke button takes back. Headless Chromium against a real
//! server and the scripted model; screenshots under `target/ui-screenshots/`.

use crate::browser_support;
use crate::common;

use std::sync::Arc;
use std::time::Duration;

use browser_support::{Chromium, click, eval, open_page, screenshot, send, wait_for};
use browser_support::{press, screenshots_in_each_scheme, set_viewport};
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

#[tokio::test]
async fn always_adds_a_grant_the_permissions_dialog_lists_and_revokes() {
    let Some(browser) = Chromium::start("permissions dialog").await else {
        return;
    };
    let (s, _workspace) = Server::with_confirmed_shell(Duration::from_secs(20)).await;
    let shell = |call: &str| {
        ScriptedResponse::tool_calls([ToolCallSpec::new(
            call,
            "ExecuteCommand",
            serde_json::json!({ "command": "echo granted" }).to_string(),
        )])
    };
    s.model
        .push_all([shell("c1"), shell("c2"), ScriptedResponse::text("Done.")]);
    let page = open_page(&s, &browser).await;
    click(&page, "#permissions-open").await;
    wait_for(
        &page,
        "!document.getElementById('permissions-empty').hidden",
    )
    .await;
    screenshot(&page, "permissions-empty").await;
    click(&page, "#permissions-close").await;

    send(&page, "run it twice").await;
    wait_for(&page, "!document.getElementById('confirm-dialog').hidden").await;
    click(&page, "#confirm-always").await;
    // The same command again runs unasked.
    wait_for(
        &page,
        "document.querySelector('[data-call-id=\"c2\"]')?.classList.contains('ok')",
    )
    .await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant')?.textContent.includes('Done.')",
    )
    .await;

    click(&page, "#permissions-open").await;
    wait_for(
        &page,
        "document.querySelectorAll('#permissions-list .grant').length === 1",
    )
    .await;
    let shown = eval(
        &page,
        "[...document.querySelectorAll('#permissions-list .grant > *')].map(e => e.textContent)",
    )
    .await;
    let shown: Vec<&str> = shown
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    assert_eq!(shown[0], "ExecuteCommand(echo granted)", "{shown:?}");
    assert!(shown[1].starts_with("Always · "), "{shown:?}");
    assert!(shown[2].contains("echo granted"), "{shown:?}");
    assert_eq!(shown[3], "Revoke");
    assert!(
        eval(&page, "document.getElementById('permissions-empty').hidden")
            .await
            .as_bool()
            .unwrap()
    );
    screenshots_in_each_scheme(&page, "permissions").await;
    // The phone's width holds the dialog and its button.
    let fits = eval(
        &page,
        "(() => { const d = document.getElementById('permissions-dialog').getBoundingClientRect(); \
         const b = document.querySelector('.grant-revoke').getBoundingClientRect(); \
         return d.left >= 0 && d.right <= innerWidth && b.right <= d.right; })()",
    )
    .await;
    assert_eq!(fits, true);
    set_viewport(&page, 1280, 800).await;

    // Revoked from the keyboard: the button takes the focus and Enter presses it.
    eval(
        &page,
        "(document.querySelector('.grant-revoke').focus(), true)",
    )
    .await;
    press(&page, ".grant-revoke", "Enter").await;
    wait_for(
        &page,
        "!document.getElementById('permissions-empty').hidden",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "document.querySelectorAll('#permissions-list .grant').length"
        )
        .await,
        0
    );
    assert_eq!(
        eval(&page, "document.activeElement.id").await,
        "permissions-close"
    );
    assert_eq!(
        s.get_json("/api/permissions").await,
        serde_json::json!({"grants": []})
    );
    browser.close().await;
}
