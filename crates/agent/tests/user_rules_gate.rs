//! A user's own rules at the permission gate (multi-user `serve`): decided beside the
//! home's for the calls of a context carrying them, they only narrow them — the user's
//! deny refuses what the home allows (naming the rule as theirs), the user's ask asks
//! about what the home would run, and the home's deny still wins over the user's ask.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use smallebot_agent::tools::{PermissionGate, ToolRegistry, permission_argument, workspace_tools};
use smallebot_application::ports::{
    Answer, CommandConfirmer, ConfirmationRequest, ToolContext, ToolExecutor, ToolInvocation,
    ToolOutcome, TurnUserRules,
};
use smallebot_core::entities::{ToolCallStatus, UserRules};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::permission::{PermissionRule, PermissionRules};
use tokio_util::sync::CancellationToken;

/// Records the rule that asked; says yes.
#[derive(Default)]
struct Asked(Mutex<Vec<Option<String>>>);

#[async_trait]
impl CommandConfirmer for Asked {
    async fn confirm(&self, _request: &ConfirmationRequest<'_>, _timeout: Duration) -> bool {
        unreachable!("the gate asks for an answer")
    }

    async fn answer(&self, request: &ConfirmationRequest<'_>, _timeout: Duration) -> Answer {
        self.0.lock().unwrap().push(request.rule.map(str::to_owned));
        Answer::Once
    }
}

async fn call(
    registry: &ToolRegistry,
    user: Option<&UserRules>,
    tool: &str,
    arguments: serde_json::Value,
) -> ToolOutcome {
    let invocation = ToolInvocation {
        call_id: "call_1".into(),
        name: tool.into(),
        arguments: arguments.to_string(),
    };
    let own = user.map(|rules| {
        Arc::new(TurnUserRules {
            user: "ann".to_owned(),
            rules: rules.clone(),
        })
    });
    let context = ToolContext::in_turn(
        ConversationId::new(),
        TurnId::new(),
        CancellationToken::new(),
    )
    .with_user_rules(own);
    registry.execute(&invocation, &context).await
}

#[tokio::test]
async fn a_users_rules_narrow_the_homes_and_say_whose_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("workspace");
    std::fs::create_dir_all(root.join("docs/private")).unwrap();
    std::fs::write(root.join("docs/a.md"), "a").unwrap();
    let parsed = |rule: &str| PermissionRule::parse(rule, &permission_argument).unwrap();
    let home = PermissionRules {
        allow: vec![parsed("WriteFile(docs/**)"), parsed("ReadFile")],
        deny: vec![parsed("ListFiles")],
        ..PermissionRules::default()
    };
    let asked = Arc::new(Asked::default());
    let registry = workspace_tools(root.clone())
        .into_iter()
        .fold(ToolRegistry::new(), ToolRegistry::with)
        .with_gate(Arc::new(PermissionGate::new(home, asked.clone())));
    let ann = UserRules {
        deny: vec!["WriteFile(docs/private/**)".to_owned()],
        ask: vec!["ReadFile".to_owned(), "ListFiles".to_owned()],
    };
    let write = |path: &str| json!({"path": path, "content": "x"});

    let refused = call(
        &registry,
        Some(&ann),
        "WriteFile",
        write("docs/private/k.md"),
    )
    .await;
    assert_eq!(refused.status, ToolCallStatus::Denied);
    assert_eq!(
        refused.content,
        "Error: this call of WriteFile was denied by user ann's own permission rule \
         `deny WriteFile(docs/private/**)` (set for them with `smallebot users set ann \
         --deny`); it was not run. Do not retry it: do the task another way, or ask the \
         server's owner to change the rule."
    );
    assert!(!root.join("docs/private/k.md").exists());
    // Without Ann's rules (another user's turn), the home's allow applies.
    let written = call(&registry, None, "WriteFile", write("docs/private/k.md")).await;
    assert_eq!(written.status, ToolCallStatus::Ok, "{}", written.content);
    let outside = call(&registry, Some(&ann), "WriteFile", write("docs/b.md")).await;
    assert_eq!(outside.status, ToolCallStatus::Ok, "{}", outside.content);
    assert!(asked.0.lock().unwrap().is_empty(), "nothing asked so far");

    // Ann's ask rule asks about a read the home allows; the home's deny still refuses
    // a listing Ann's rule would only ask about.
    let read = call(
        &registry,
        Some(&ann),
        "ReadFile",
        json!({"path": "docs/a.md"}),
    )
    .await;
    assert_eq!(read.status, ToolCallStatus::Ok, "{}", read.content);
    assert_eq!(
        *asked.0.lock().unwrap(),
        [Some("ask ReadFile (user ann's own rule)".to_owned())]
    );
    let listed = call(&registry, Some(&ann), "ListFiles", json!({})).await;
    assert_eq!(listed.status, ToolCallStatus::Denied);
    assert!(
        listed.content.contains("`deny ListFiles` in agent.json"),
        "{}",
        listed.content
    );
    assert_eq!(asked.0.lock().unwrap().len(), 1);
}
