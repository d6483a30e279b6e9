//! The rows in the context a store keeps between reads (`history/cache.rs`) are always
//! what a fresh read finds: two stores on one database stand for two server
//! processes; after each write of either, each store's read equals that of a store
//! that never read before, and the conversation's running total equals the sum of
//! those rows' tokens.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use smallebot_application::rewrite;
use smallebot_core::entities::{
    CompressionUpdate, Conversation, HistoryRow, LeaseOwner, NewStep, NewTurn, StartedTurn,
    StepMessage, StepToolCall, ToolCallCompletion, ToolCallStatus, Turn, TurnEnd, TurnStatus,
};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_postgres::PgStore;
use smallebot_testkit::postgres::TestCluster;

fn owner() -> LeaseOwner {
    LeaseOwner {
        pid: std::process::id(),
        host: "test-host".into(),
        started_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 3),
    }
}

/// A step with an answer and, when `call` is given, one tool call (then the turn goes
/// on); else the end of the turn.
fn step(c: &Conversation, turn: &Turn, text: &str, call: Option<&str>) -> NewStep {
    NewStep {
        conversation_id: c.id,
        turn_id: turn.id,
        reasoning: Some(format!("thinking about {text}")),
        message: Some(StepMessage {
            content: text.to_owned(),
            token_count: 4,
        }),
        tool_calls: call
            .map(|id| StepToolCall {
                call_id: id.to_owned(),
                tool_name: "GetCurrentTime".into(),
                arguments: "{}".into(),
                token_count: 6,
            })
            .into_iter()
            .collect(),
        end: call.is_none().then_some(TurnEnd {
            status: TurnStatus::Completed,
            error: None,
            cut: None,
        }),
    }
}

struct Stores {
    a: PgStore,
    b: PgStore,
    url: String,
    _cluster: TestCluster,
}

impl Stores {
    /// Two stores on a new database of a throwaway cluster, and a conversation of the
    /// first; `None` without PostgreSQL.
    async fn start(test: &str) -> Option<(Self, Conversation)> {
        let cluster = TestCluster::start(test)?;
        let url = cluster.create_database().unwrap();
        let stores = Self {
            a: PgStore::connect(&url).await.unwrap(),
            b: PgStore::connect(&url).await.unwrap(),
            url,
            _cluster: cluster,
        };
        let c = stores
            .a
            .create_conversation("ann", "New conversation")
            .await
            .unwrap();
        Some((stores, c))
    }

    /// Both stores' rows after `boundary` equal a fresh store's; returns them.
    async fn agree(&self, c: &Conversation, boundary: i64, after: &str) -> Vec<HistoryRow> {
        let fresh = PgStore::connect(&self.url).await.unwrap();
        let expected = fresh.context_rows_after(c.id, boundary).await.unwrap();
        if let Some(now) = fresh.get_conversation(c.id).await.unwrap() {
            let rows = fresh
                .context_rows_after(c.id, now.history_boundary())
                .await
                .unwrap();
            let sum: i64 = rows
                .iter()
                .filter(|r| !matches!(r, HistoryRow::Message(m) if m.replaced_by.is_some()))
                .map(HistoryRow::token_count)
                .sum();
            assert_eq!(now.context_tokens, sum, "the running total after {after}");
        }
        fresh.close().await;
        for (name, store) in [("a", &self.a), ("b", &self.b)] {
            let kept = store.context_rows_after(c.id, boundary).await.unwrap();
            assert_eq!(kept, expected, "store {name} after {after}");
        }
        expected
    }

    /// A whole turn on `store`: a step with a tool call, its result, the answer.
    async fn turn(&self, store: &PgStore, c: &Conversation, text: &str) -> Turn {
        let StartedTurn { turn, .. } = store
            .start_turn_in_context(&NewTurn {
                token_count: 3,
                ..NewTurn::new(c.id, text, &owner())
            })
            .await
            .unwrap();
        store
            .record_step(&step(c, &turn, "looking", Some("call_1")))
            .await
            .unwrap();
        store
            .complete_tool_call(turn.id, "call_1", &done("noon"))
            .await
            .unwrap();
        store
            .record_step(&step(c, &turn, "it is noon", None))
            .await
            .unwrap();
        turn
    }
}

fn done(result: &str) -> ToolCallCompletion {
    ToolCallCompletion {
        result: result.to_owned(),
        status: ToolCallStatus::Ok,
        token_count: 9,
    }
}

#[tokio::test]
async fn kept_rows_equal_a_fresh_read_after_every_write_of_either_process() {
    let Some((stores, c)) = Stores::start("kept_rows").await else {
        return;
    };
    let (a, b) = (&stores.a, &stores.b);
    stores.agree(&c, 0, "nothing").await;

    // Each write of a turn, read between them.
    let StartedTurn { turn, .. } = a
        .start_turn_in_context(&NewTurn {
            token_count: 3,
            ..NewTurn::new(c.id, "what time is it?", &owner())
        })
        .await
        .unwrap();
    stores.agree(&c, 0, "a turn started").await;
    a.record_step(&step(&c, &turn, "looking", Some("call_1")))
        .await
        .unwrap();
    stores.agree(&c, 0, "a step with a call").await;
    a.complete_tool_call(turn.id, "call_1", &done("noon"))
        .await
        .unwrap();
    stores.agree(&c, 0, "a tool result").await;
    a.record_step(&step(&c, &turn, "it is noon", None))
        .await
        .unwrap();
    stores.agree(&c, 0, "the last step").await;

    // Whole turns in one process, then in the other.
    stores.turn(a, &c, "and now?").await;
    stores.agree(&c, 0, "a turn of a").await;
    let of_b = stores.turn(b, &c, "and now, b?").await;
    stores.agree(&c, 0, "a turn of b").await;

    // The rarer writes.
    rewrite::undo_last_turn(b, c.id).await.unwrap().unwrap();
    stores.agree(&c, 0, "an undo").await;
    let (restarted, _) = rewrite::regenerate_turn(a, of_b.id, &owner())
        .await
        .unwrap();
    stores.agree(&c, 0, "a regeneration").await;
    assert!(a.interrupt_turn(restarted.id).await.unwrap());
    stores.agree(&c, 0, "an interruption").await;
    let rows = stores.agree(&c, 0, "before recounting").await;
    let first = rows.first().unwrap().seq();
    let last = rows.last().unwrap().seq();
    b.set_exact_counts(c.id, &[(first, 1)], last).await.unwrap();
    stores.agree(&c, 0, "recounted tokens").await;
    let user = rows
        .iter()
        .find_map(|row| match row {
            HistoryRow::Message(m) if m.turn_id == restarted.id => Some(m.id),
            _ => None,
        })
        .unwrap();
    rewrite::edit_user_message(a, user, "and now, edited?", 4, &owner())
        .await
        .unwrap();
    stores.agree(&c, 0, "an edit").await;

    // A turn that ends with its call still running (cancelled): the call ends too.
    let turn = b.running_turn(c.id).await.unwrap().unwrap();
    b.record_step(&step(&c, &turn, "looking again", Some("call_2")))
        .await
        .unwrap();
    stores.agree(&c, 0, "a call running").await;
    b.finish_turn(turn.id, TurnStatus::Cancelled, None)
        .await
        .unwrap();
    let rows = stores.agree(&c, 0, "a cancelled turn").await;
    assert!(rows.iter().any(|row| matches!(row,
        HistoryRow::ToolCall(call) if call.call_id == "call_2"
            && call.status == ToolCallStatus::Interrupted)));

    // A compression: the rows after the new boundary, and still those after the old.
    let through = rows.get(2).unwrap().seq();
    b.set_compression(
        c.id,
        &CompressionUpdate {
            compressed_context: "summary".into(),
            compressed_at: chrono::Utc::now(),
            compressed_through_seq: through,
            expected_previous_seq: None,
        },
    )
    .await
    .unwrap();
    stores.agree(&c, through, "a compression").await;
    stores
        .agree(&c, 0, "a compression, read from the start")
        .await;
    stores.turn(a, &c, "after the summary").await;
    stores
        .agree(&c, through, "a turn after a compression")
        .await;

    // A deleted conversation has no rows.
    b.delete_conversation(c.id).await.unwrap();
    assert!(stores.agree(&c, through, "a deletion").await.is_empty());
}

#[tokio::test]
async fn a_turn_started_in_context_takes_its_rows_from_the_copy_only_while_current() {
    use smallebot_core::entities::NewTurn;
    let Some((stores, c)) = Stores::start("kept_rows_start").await else {
        return;
    };
    let (a, b) = (&stores.a, &stores.b);
    let me = owner();
    let new = |text| NewTurn {
        conversation_id: c.id,
        thinking_mode: false,
        content: text,
        attachments: &[],
        token_count: 3,
        owner: &me,
        title: None,
        boundary: 0,
    };
    let end = |turn: smallebot_core::ids::TurnId| async move {
        a.finish_turn(turn, TurnStatus::Completed, None)
            .await
            .unwrap();
    };
    // Nothing kept yet: the start does not answer the rows (the caller reads them).
    let first = a.start_turn_in_context(&new("first")).await.unwrap();
    assert_eq!(first.rows, None);
    end(first.turn.id).await;
    // Read once, then a turn of the same store: its start brings the copy along and
    // answers it, equal to a fresh read.
    stores.agree(&c, 0, "a first turn").await;
    stores.turn(a, &c, "a turn of a").await;
    let started = a.start_turn_in_context(&new("second")).await.unwrap();
    let expected = stores.agree(&c, 0, "a start in context").await;
    assert_eq!(started.rows, Some(expected));
    end(started.turn.id).await;
    // Another process wrote since the copy was kept: no rows answered, never stale ones.
    stores.agree(&c, 0, "before b's turn").await;
    stores.turn(b, &c, "a turn of b").await;
    let after_b = a.start_turn_in_context(&new("third")).await.unwrap();
    assert_eq!(after_b.rows, None);
    end(after_b.turn.id).await;
    // Another boundary than the copy's: none either.
    stores.agree(&c, 0, "a turn after b's").await;
    let elsewhere = a
        .start_turn_in_context(&NewTurn {
            boundary: 2,
            ..new("fourth")
        })
        .await
        .unwrap();
    assert_eq!(elsewhere.rows, None);
}
