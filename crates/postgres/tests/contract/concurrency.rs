//! Contract: concurrency — writers of one turn get gap-free `seq`s, racing starts
//! (also from two stores on one PostgreSQL database) admit exactly one running turn.
//! Runs on SQLite and PostgreSQL.

use crate::backends;

use std::collections::HashSet;
use std::sync::Arc;

use crate::backends::{Kind, OrFail, owner};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{HistoryRow, NewMessage, NewTurn, Role, StartedTurn};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::Store;
use smallebot_postgres::PgStore;

/// Concurrent writers of one turn.
const WRITERS: usize = 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_of_one_turn_get_every_seq_once_without_gaps() {
    for b in backends::each("concurrent_writers_of_one_turn_get_every_seq_once").await {
        let name = b.name;
        let c = b.conversation("alice").await;
        let turn = b.running_user_turn(&c, "go").await;
        let tasks: Vec<_> = (0..WRITERS)
            .map(|i| {
                let store = Arc::clone(&b.store);
                let message = NewMessage {
                    conversation_id: c.id,
                    turn_id: turn.id,
                    role: Role::Assistant,
                    content: format!("message {i}"),
                    token_count: 1,
                };
                tokio::spawn(async move { store.append_message(&message).await.or_fail(name).seq })
            })
            .collect();
        let mut returned = Vec::new();
        for task in tasks {
            returned.push(task.await.or_fail(name));
        }
        let distinct: HashSet<_> = returned.iter().copied().collect();
        assert_eq!(
            distinct.len(),
            WRITERS,
            "{name}: duplicate seq in {returned:?}"
        );
        assert!(
            returned.iter().all(|s| *s > turn.seq),
            "{name}: {returned:?}"
        );

        let stored: Vec<i64> = b.rows(&c).await.iter().map(HistoryRow::seq).collect();
        let mut sorted = stored.clone();
        sorted.sort_unstable();
        assert_eq!(stored, sorted, "{name}: rows come in seq order");
        // The turn, its user message and the writers' rows: 1..=N, each once.
        let mut all = stored;
        all.push(turn.seq);
        all.sort_unstable();
        let n = i64::try_from(WRITERS).unwrap() + 2;
        assert_eq!(all, (1..=n).collect::<Vec<_>>(), "{name}");
        let read = b
            .store
            .get_conversation(c.id)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(read.context_tokens, 3 + 20, "{name}");
    }
}

/// Starts `racers` turns on one conversation at once, spread over `stores`; returns the
/// winner's turn id after checking that the others were refused with `TurnRunning`.
async fn race_starts(
    name: &'static str,
    stores: &[Arc<dyn Store>],
    conversation: ConversationId,
    racers: usize,
) -> TurnId {
    let tasks: Vec<_> = (0..racers)
        .map(|i| {
            let store = Arc::clone(&stores[i % stores.len()]);
            tokio::spawn(async move {
                let text = format!("racer {i}");
                store
                    .start_turn_in_context(&NewTurn {
                        token_count: 1,
                        ..NewTurn::new(conversation, &text, &owner())
                    })
                    .await
            })
        })
        .collect();
    let mut winners = Vec::new();
    let mut refused = Vec::new();
    for task in tasks {
        match task.await.or_fail(name) {
            Ok(StartedTurn { turn, message, .. }) => {
                assert_eq!(message.turn_id, turn.id, "{name}");
                winners.push(turn.id);
            }
            Err(RepositoryError::TurnRunning(running)) => refused.push(running.id),
            Err(other) => panic!("{name}: expected TurnRunning, got {other}"),
        }
    }
    assert_eq!(winners.len(), 1, "{name}: exactly one start wins");
    assert!(
        refused.iter().all(|id| *id == winners[0]),
        "{name}: the refused starts name the winner: {refused:?} vs {winners:?}"
    );
    winners[0]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_concurrent_starts_on_one_conversation_admit_exactly_one() {
    for b in backends::each("two_concurrent_starts_on_one_conversation").await {
        let name = b.name;
        for _ in 0..3 {
            let c = b.conversation("alice").await;
            let store: Arc<dyn Store> = b.store.clone();
            let winner = race_starts(name, &[store], c.id, 2).await;
            let rows = b.rows(&c).await;
            assert_eq!(rows.len(), 1, "{name}: one user message: {rows:?}");
            assert_eq!(rows[0].turn_id(), winner, "{name}");
            let turns = b.store.list_turns(c.id).await.or_fail(name);
            assert_eq!(turns.len(), 1, "{name}: {turns:?}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_postgres_stores_on_one_database_admit_exactly_one_running_turn() {
    let Some(b) = backends::postgres("two_postgres_stores_on_one_database").await else {
        return;
    };
    let name = b.name;
    let Kind::Postgres(_, url) = &b.kind else {
        panic!("{name}: not a PostgreSQL backend")
    };
    let one: Arc<dyn Store> = Arc::new(PgStore::connect(url).await.or_fail(name));
    let two: Arc<dyn Store> = Arc::new(PgStore::connect(url).await.or_fail(name));
    for _ in 0..3 {
        let c = b.conversation("alice").await;
        let stores = [Arc::clone(&one), Arc::clone(&two)];
        let winner = race_starts(name, &stores, c.id, 10).await;
        let rows = b.rows(&c).await;
        assert_eq!(rows.len(), 1, "{name}: one user message: {rows:?}");
        assert_eq!(rows[0].turn_id(), winner, "{name}");
        let turns = b.store.list_turns(c.id).await.or_fail(name);
        assert_eq!(turns.len(), 1, "{name}: {turns:?}");
        // Either store sees the winner running.
        for store in [&one, &two] {
            let running = store.running_turn(c.id).await.or_fail(name);
            assert_eq!(running.map(|t| t.id), Some(winner), "{name}");
        }
    }
}
