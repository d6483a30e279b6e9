//! Contract: hook runs — stored and read back alike, oldest first, on their turn or
//! without one; a run of a conversation that is gone is not stored; gone with their
//! conversation. Runs on SQLite and PostgreSQL.

use chrono::{SubsecRound, Utc};
use smallebot_core::entities::HookRun;
use smallebot_core::ids::{ConversationId, TurnId};

use crate::backends::{self, OrFail};

fn run(
    conversation: ConversationId,
    turn: Option<TurnId>,
    event: &str,
    exit: Option<i32>,
) -> HookRun {
    HookRun {
        conversation_id: conversation,
        turn_id: turn,
        event: event.to_owned(),
        tool_name: turn.map(|_| "ExecuteCommand".to_owned()),
        call_id: turn.map(|_| "call_1".to_owned()),
        command: "sh check.sh".to_owned(),
        exit_code: exit,
        duration_ms: 12,
        decision: if exit == Some(2) { "block" } else { "" }.to_owned(),
        at: Utc::now().trunc_subsecs(3),
    }
}

#[tokio::test]
async fn hook_runs_are_recorded_and_listed_alike() {
    for b in backends::each("hook_runs_recorded").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let turn = b.user_turn(&c, "one").await;
        let blocked = run(c.id, Some(turn.id), "PreToolUse", Some(2));
        let prompt = run(c.id, None, "UserPromptSubmit", Some(0));
        let killed = run(c.id, Some(turn.id), "Stop", None);
        let elsewhere = run(ConversationId::new(), None, "SessionStart", Some(0));
        for r in [&blocked, &prompt, &killed, &elsewhere] {
            b.store.record_hook_run(r.clone());
        }
        let listed = b.store.hook_runs(c.id).await.or_fail(name);
        assert_eq!(listed, vec![blocked, prompt, killed], "{name}");
        let nothing = b
            .store
            .hook_runs(elsewhere.conversation_id)
            .await
            .or_fail(name);
        assert!(nothing.is_empty(), "{name}");
        assert!(b.store.delete_conversation(c.id).await.or_fail(name));
        assert!(
            b.store.hook_runs(c.id).await.or_fail(name).is_empty(),
            "{name}"
        );
    }
}
