//! Contract: a turn started with the rows of its context (`start_turn_in_context`)
//! starts, titles and is refused alike on both engines, and the rows it gives back,
//! when it gives them, are those a read right after the start finds. Runs on SQLite
//! and PostgreSQL.

use crate::backends::{self, Backend, OrFail, owner};
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    Conversation, FirstTurnTitle, LeaseOwner, NewTurn, Role, StartedTurn, TurnStatus,
};
use smallebot_core::ids::ConversationId;

/// A start of `text` in `c` after `boundary`, titled `title` when given.
fn new_turn<'a>(
    c: ConversationId,
    text: &'a str,
    me: &'a LeaseOwner,
    title: Option<&'a str>,
    boundary: i64,
) -> NewTurn<'a> {
    NewTurn {
        token_count: 3,
        title: title.map(|title| FirstTurnTitle {
            untitled: "New conversation",
            title,
        }),
        boundary,
        ..NewTurn::new(c, text, me)
    }
}

/// Starts `new`, checks the rows it gave back against a read, and ends the turn.
async fn start_and_check(b: &Backend, c: &Conversation, new: &NewTurn<'_>) -> StartedTurn {
    let name = b.name;
    let started = b.store.start_turn_in_context(new).await.or_fail(name);
    let read = b
        .store
        .context_rows_after(c.id, new.boundary)
        .await
        .or_fail(name);
    if let Some(rows) = &started.rows {
        assert_eq!(rows, &read, "{name}: the rows given back with the start");
    }
    let last = read.last().or_fail(name);
    assert_eq!(
        last.seq(),
        started.message.seq,
        "{name}: the message is last"
    );
    b.store
        .finish_turn(started.turn.id, TurnStatus::Completed, None)
        .await
        .or_fail(name);
    started
}

#[tokio::test]
async fn a_turn_started_in_context_starts_titles_and_is_refused_as_the_plain_start() {
    for b in backends::each("a_turn_started_in_context").await {
        let name = b.name;
        let me = owner();
        let c = b.conversation("alice").await;
        // The first turn: titled, its message after it.
        let first = start_and_check(&b, &c, &new_turn(c.id, "hello", &me, Some("hello"), 0)).await;
        assert!(first.titled, "{name}");
        assert_eq!((first.turn.seq, first.message.seq), (1, 2), "{name}");
        assert_eq!(
            (first.message.role, first.message.content.as_str()),
            (Role::User, "hello"),
            "{name}"
        );
        assert_eq!(
            first.turn.lease.as_ref().map(|l| &l.owner),
            Some(&me),
            "{name}"
        );
        let title = b.store.get_conversation(c.id).await.or_fail(name);
        assert_eq!(title.or_fail(name).title, "hello", "{name}");
        // Later turns, read between them (a store that keeps rows has them then), never
        // titled again; also after a boundary.
        let read = b.store.context_rows_after(c.id, 0).await.or_fail(name);
        let second = start_and_check(&b, &c, &new_turn(c.id, "again", &me, Some("x"), 0)).await;
        assert!(!second.titled, "{name}");
        assert_eq!(second.turn.seq, 3, "{name}");
        let boundary = read.last().or_fail(name).seq();
        let third = start_and_check(&b, &c, &new_turn(c.id, "more", &me, None, boundary)).await;
        assert_eq!(third.turn.seq, 5, "{name}");
        // Refused while a turn runs: the running turn named, nothing stored.
        let running = b
            .store
            .start_turn_in_context(&new_turn(c.id, "busy", &me, None, 0))
            .await
            .or_fail(name);
        let err = b
            .store
            .start_turn_in_context(&new_turn(c.id, "second", &me, None, 0))
            .await
            .unwrap_err();
        let RepositoryError::TurnRunning(turn) = &err else {
            panic!("{name}: {err}")
        };
        assert_eq!(turn.id, running.turn.id, "{name}");
        // Four user messages, one per turn started.
        assert_eq!(b.rows(&c).await.len(), 4, "{name}");
        // An unknown conversation: not found, nothing stored.
        let missing = ConversationId::new();
        let refused = b
            .store
            .start_turn_in_context(&new_turn(missing, "lost?", &me, None, 0))
            .await;
        b.refused_as_unknown(refused, missing).await;
    }
}
