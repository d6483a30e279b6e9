//! Grants kept in the store the gate was given: "always" is stored for the user of the
//! conversation it was given in and never allows another user's call; "always in this
//! conversation" only that conversation; a revoked grant allows nothing any more; every
//! grant lists who, the scope, the rules and the call that prompted it.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use smallebot_agent::config::TerminalSettings;
use smallebot_agent::tools::{ExecuteCommand, PermissionGate, ToolRegistry, Workspace};
use smallebot_application::ports::{
    Answer, CommandConfirmer, ConfirmationRequest, ToolContext, ToolExecutor, ToolInvocation,
};
use smallebot_core::entities::{GrantFilter, GrantScope, ToolCallStatus};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{ConversationRepository, PermissionGrantRepository, Store};
use smallebot_core::rules::permission::{DefaultMode, PermissionRules};
use smallebot_infrastructure::SqliteStore;
use tokio_util::sync::CancellationToken;

/// Gives the answers in order (then denies), recording each command asked about.
struct Person {
    answers: Mutex<Vec<Answer>>,
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl CommandConfirmer for Person {
    async fn confirm(&self, _request: &ConfirmationRequest<'_>, _timeout: Duration) -> bool {
        unreachable!("the gate asks for an answer")
    }

    async fn answer(&self, request: &ConfirmationRequest<'_>, _timeout: Duration) -> Answer {
        self.asked.lock().unwrap().push(request.command.to_owned());
        self.answers.lock().unwrap().pop().unwrap_or(Answer::Deny)
    }
}

struct Setup {
    _dir: tempfile::TempDir,
    store: SqliteStore,
    registry: ToolRegistry,
    person: Arc<Person>,
}

async fn setup(answers: &[Answer]) -> Setup {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("smallebot.db"))
        .await
        .unwrap();
    let root = dir.path().join("workspace");
    std::fs::create_dir_all(&root).unwrap();
    let person = Arc::new(Person {
        answers: Mutex::new(answers.iter().rev().copied().collect()),
        asked: Mutex::default(),
    });
    let confirmer: Arc<dyn CommandConfirmer> = person.clone();
    let shell = ExecuteCommand::new(
        TerminalSettings::default(),
        Workspace::new(root),
        Arc::clone(&confirmer),
    )
    .unwrap();
    let rules = PermissionRules {
        default_mode: DefaultMode::Ask,
        ..PermissionRules::default()
    };
    let shared: Arc<dyn Store> = Arc::new(store.clone());
    let gate = PermissionGate::new(rules, confirmer).with_grant_store(shared);
    let registry = ToolRegistry::new()
        .with(Arc::new(shell))
        .with_gate(Arc::new(gate));
    Setup {
        _dir: dir,
        store,
        registry,
        person,
    }
}

impl Setup {
    async fn run(&self, conversation: ConversationId, command: &str) -> ToolCallStatus {
        let invocation = ToolInvocation {
            call_id: "call_1".into(),
            name: "ExecuteCommand".into(),
            arguments: json!({ "command": command }).to_string(),
        };
        let context = ToolContext::in_turn(conversation, TurnId::new(), CancellationToken::new());
        self.registry.execute(&invocation, &context).await.status
    }

    fn asked(&self) -> Vec<String> {
        self.person.asked.lock().unwrap().clone()
    }
}

#[tokio::test]
async fn always_is_stored_for_its_user_only_and_revoking_it_asks_again() {
    let s = setup(&[Answer::Always]).await;
    let ann = s.store.create_conversation("ann", "a").await.unwrap().id;
    let ann_later = s.store.create_conversation("ann", "b").await.unwrap().id;
    let bob = s.store.create_conversation("bob", "c").await.unwrap().id;
    assert_eq!(s.run(ann, "echo hi").await, ToolCallStatus::Ok);
    // Ann's other conversation runs it unasked; Bob is asked (and, no answers left,
    // refused): one user's "always" never allows another user's call.
    assert_eq!(s.run(ann_later, "echo hi").await, ToolCallStatus::Ok);
    assert_eq!(s.run(bob, "echo hi").await, ToolCallStatus::Denied);
    assert_eq!(s.asked(), ["echo hi", "echo hi"]);

    let grants = s
        .store
        .permission_grants(&GrantFilter::default())
        .await
        .unwrap();
    assert_eq!(grants.len(), 1);
    let grant = &grants[0];
    assert_eq!(
        (grant.user_name.as_str(), grant.scope, grant.rules.clone()),
        (
            "ann",
            GrantScope::Always,
            vec!["ExecuteCommand(echo hi)".to_owned()]
        )
    );
    assert_eq!(grant.call, "echo hi");

    // Revoked: asked again (and refused).
    s.store
        .revoke_permission_grant(grant.id, Some("ann"), chrono::Utc::now())
        .await
        .unwrap()
        .unwrap();
    assert_eq!(s.run(ann_later, "echo hi").await, ToolCallStatus::Denied);
    assert_eq!(s.asked().len(), 3);
}

#[tokio::test]
async fn always_in_this_conversation_is_stored_for_that_conversation() {
    let s = setup(&[Answer::Conversation]).await;
    let here = s.store.create_conversation("ann", "a").await.unwrap().id;
    let elsewhere = s.store.create_conversation("ann", "b").await.unwrap().id;
    assert_eq!(s.run(here, "echo a && echo b").await, ToolCallStatus::Ok);
    assert_eq!(s.run(here, "echo b").await, ToolCallStatus::Ok);
    assert_eq!(s.run(elsewhere, "echo b").await, ToolCallStatus::Denied);
    let grants = s
        .store
        .permission_grants(&GrantFilter::default())
        .await
        .unwrap();
    assert_eq!(grants.len(), 1);
    assert_eq!(grants[0].scope, GrantScope::Conversation(here));
    assert_eq!(
        grants[0].rules,
        ["ExecuteCommand(echo a)", "ExecuteCommand(echo b)"]
    );
}
