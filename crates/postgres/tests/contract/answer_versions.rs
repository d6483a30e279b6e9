//! Contract: the answers an edit or a regeneration replaced are kept as versions of the
//! user message they answered, oldest first, and go with a discarded later turn. Runs on
//! SQLite and PostgreSQL.

use smallebot_core::entities::{
    Conversation, HistoryRow, Message, MessageReplacement, RewriteGuard, Role, TurnRestart,
    TurnStatus,
};

use crate::backends::{self, Backend, OrFail, owner};

fn guard(c: &Conversation) -> RewriteGuard {
    RewriteGuard {
        conversation_id: c.id,
        boundary: 0,
    }
}

fn current_user(rows: &[HistoryRow], content: &str) -> Message {
    rows.iter()
        .find_map(|r| match r {
            HistoryRow::Message(m)
                if m.role == Role::User && m.content == content && m.replaced_by.is_none() =>
            {
                Some(m.clone())
            }
            _ => None,
        })
        .unwrap_or_else(|| panic!("no current user message {content:?} in {rows:?}"))
}

/// The stored versions as (answered message's text, answer).
async fn versions(b: &Backend, c: &Conversation) -> Vec<(String, String)> {
    let rows = b.rows(c).await;
    let text_of = |id| {
        rows.iter()
            .find_map(|r| match r {
                HistoryRow::Message(m) if m.id == id => Some(m.content.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{}: no message {id}", b.name))
    };
    b.store
        .answer_versions(c.id)
        .await
        .or_fail(b.name)
        .into_iter()
        .map(|v| {
            assert_eq!(v.conversation_id, c.id, "{}", b.name);
            (text_of(v.message_id), v.content)
        })
        .collect()
}

fn pairs(expected: &[(&str, &str)]) -> Vec<(String, String)> {
    expected
        .iter()
        .map(|(m, a)| ((*m).to_owned(), (*a).to_owned()))
        .collect()
}

#[tokio::test]
async fn replaced_answers_are_kept_as_versions_of_their_message() {
    for b in backends::each("replaced_answers_are_kept_as_versions").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let one = b.user_turn(&c, "one").await;
        b.assistant(&c, &one, "answer one").await;
        let two = b.user_turn(&c, "two").await;
        b.assistant(&c, &two, "answer two, part 1").await;
        b.assistant(&c, &two, "part 2").await;
        assert!(versions(&b, &c).await.is_empty(), "{name}");

        // Regenerate "two": its answer becomes a version of "two".
        let two_message = current_user(&b.rows(&c).await, "two");
        let (restarted, _) = b
            .store
            .restart_turn(&TurnRestart {
                guard: guard(&c),
                turn_id: two.id,
                keep_message: two_message.id,
                owner: owner(),
            })
            .await
            .or_fail(name);
        b.assistant(&c, &restarted, "answer two again").await;
        b.store
            .finish_turn(restarted.id, TurnStatus::Completed, None)
            .await
            .or_fail(name);
        assert_eq!(
            versions(&b, &c).await,
            pairs(&[("two", "answer two, part 1\n\npart 2")]),
            "{name}"
        );

        // Edit "two": its second answer is kept too, tied to the replaced message.
        let (edited_turn, _) = b
            .store
            .replace_user_message(&MessageReplacement {
                guard: guard(&c),
                message_id: two_message.id,
                content: "two, edited".into(),
                token_count: 1,
                owner: owner(),
            })
            .await
            .or_fail(name);
        b.store
            .finish_turn(edited_turn.id, TurnStatus::Failed, Some("no answer"))
            .await
            .or_fail(name);
        let expected = [
            ("two", "answer two, part 1\n\npart 2"),
            ("two", "answer two again"),
        ];
        assert_eq!(versions(&b, &c).await, pairs(&expected), "{name}");
        // A turn without an answer leaves no version: regenerating the failed one.
        let edited = current_user(&b.rows(&c).await, "two, edited");
        let (again, _) = b
            .store
            .restart_turn(&TurnRestart {
                guard: guard(&c),
                turn_id: edited_turn.id,
                keep_message: edited.id,
                owner: owner(),
            })
            .await
            .or_fail(name);
        b.store
            .finish_turn(again.id, TurnStatus::Completed, None)
            .await
            .or_fail(name);
        assert_eq!(versions(&b, &c).await, pairs(&expected), "{name}");
        // Nothing of it goes to the model.
        let context = b.store.context_rows_after(c.id, 0).await.or_fail(name);
        assert!(
            !context.iter().any(|r| matches!(r,
                HistoryRow::Message(m) if m.content == "answer two again")),
            "{name}"
        );

        // Editing "one" discards the later turns, and their versions with them.
        let one_message = current_user(&b.rows(&c).await, "one");
        b.store
            .replace_user_message(&MessageReplacement {
                guard: guard(&c),
                message_id: one_message.id,
                content: "one, edited".into(),
                token_count: 1,
                owner: owner(),
            })
            .await
            .or_fail(name);
        assert_eq!(
            versions(&b, &c).await,
            pairs(&[("one", "answer one")]),
            "{name}"
        );
    }
}
