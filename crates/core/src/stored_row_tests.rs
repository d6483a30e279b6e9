use std::collections::BTreeMap;

use super::*;
use crate::ids::{ConversationId, TurnId};
use crate::time::parse_timestamp;

/// A row as a map from column to value; a column set to `Null` is NULL, one left out
/// is missing.
#[derive(Clone, Default)]
struct Fake(BTreeMap<&'static str, Value>);

#[derive(Clone)]
enum Value {
    Null,
    Text(String),
    Int(i64),
}

impl Fake {
    fn with(mut self, column: &'static str, value: Value) -> Self {
        self.0.insert(column, value);
        self
    }

    fn get(&self, column: &str) -> RepoResult<&Value> {
        self.0
            .get(column)
            .ok_or_else(|| RepositoryError::corrupt(column, "no such column"))
    }
}

impl StoredRow for Fake {
    fn opt_text(&self, column: &str) -> RepoResult<Option<String>> {
        match self.get(column)? {
            Value::Null => Ok(None),
            Value::Text(t) => Ok(Some(t.clone())),
            Value::Int(_) => Err(RepositoryError::corrupt(column, "an integer, not text")),
        }
    }
    fn opt_int(&self, column: &str) -> RepoResult<Option<i64>> {
        match self.get(column)? {
            Value::Null => Ok(None),
            Value::Int(i) => Ok(Some(*i)),
            Value::Text(_) => Err(RepositoryError::corrupt(column, "text, not an integer")),
        }
    }
    fn opt_time(&self, column: &str) -> RepoResult<Option<Timestamp>> {
        self.opt_text(column)?
            .map(|t| parse_timestamp(&t).map_err(|e| RepositoryError::corrupt(column, e)))
            .transpose()
    }
    fn flag(&self, column: &str) -> RepoResult<bool> {
        Ok(self.opt_int(column)? == Some(1))
    }
}

fn txt(text: &str) -> Value {
    Value::Text(text.to_owned())
}

const AT: &str = "2026-01-02T03:04:05.678Z";

fn turn_row(turn: TurnId, conversation: ConversationId) -> Fake {
    let id = turn.to_string();
    let conversation = conversation.to_string();
    Fake::default()
        .with("id", txt(&id))
        .with("conversation_id", txt(&conversation))
        .with("seq", Value::Int(4))
        .with("thinking_mode", Value::Int(1))
        .with("status", txt("running"))
        .with("error", Value::Null)
        .with("created_at", txt(AT))
        .with("completed_at", Value::Null)
        .with("owner_pid", Value::Int(42))
        .with("owner_host", txt("box"))
        .with("owner_started_at", txt(AT))
        .with("heartbeat_at", txt(AT))
        .with("undone_at", Value::Null)
        .with("cut", Value::Null)
}

#[test]
fn a_turn_row_reads_where_its_answer_was_cut_and_refuses_an_unknown_word() {
    let (id, conversation) = (TurnId::new(), ConversationId::new());
    assert_eq!(turn(&turn_row(id, conversation)).unwrap().cut, None);
    for (word, cut) in [
        ("output_limit", AnswerCut::OutputLimit),
        ("context_full", AnswerCut::ContextFull),
    ] {
        let row = turn_row(id, conversation).with("cut", txt(word));
        assert_eq!(turn(&row).unwrap().cut, Some(cut), "{word}");
    }
    let row = turn_row(id, conversation).with("cut", txt("sideways"));
    assert!(matches!(turn(&row), Err(RepositoryError::Corrupt(_))));
}

#[test]
fn a_turn_row_is_read_with_its_lease_only_when_all_four_columns_hold_one() {
    let (id, conversation) = (TurnId::new(), ConversationId::new());
    let full = turn(&turn_row(id, conversation)).unwrap();
    assert_eq!((full.id, full.conversation_id), (id, conversation));
    assert_eq!(
        (full.seq, full.thinking_mode, full.status),
        (4, true, TurnStatus::Running)
    );
    let lease = full.lease.unwrap();
    assert_eq!((lease.owner.pid, lease.owner.host.as_str()), (42, "box"));
    // Any lease column NULL: no lease.
    for column in [
        "owner_pid",
        "owner_host",
        "owner_started_at",
        "heartbeat_at",
    ] {
        let row = turn_row(id, conversation).with(column, Value::Null);
        assert_eq!(turn(&row).unwrap().lease, None, "{column}");
    }
}

#[test]
fn a_value_no_entity_can_hold_is_refused_naming_its_column() {
    let (id, conversation) = (TurnId::new(), ConversationId::new());
    // (column, value, the refusal)
    let cases = [
        (
            "status",
            txt("paused"),
            "stored data is invalid: status: unknown turn status 'paused'",
        ),
        (
            "owner_pid",
            Value::Int(-1),
            "stored data is invalid: owner_pid: out of range integral type conversion attempted",
        ),
        (
            "seq",
            Value::Null,
            "stored data is invalid: seq: NULL where an integer is required",
        ),
        (
            "status",
            Value::Null,
            "stored data is invalid: status: NULL where text is required",
        ),
        (
            "created_at",
            Value::Null,
            "stored data is invalid: created_at: NULL where an instant is required",
        ),
    ];
    for (column, value, refusal) in cases {
        let row = turn_row(id, conversation).with(column, value);
        let got = turn(&row).map_err(|e| e.to_string());
        assert_eq!(got.err().as_deref(), Some(refusal), "{column}");
    }
    let bad_id = turn_row(id, conversation).with("id", txt("turn-1"));
    let refused = turn(&bad_id).unwrap_err().to_string();
    assert!(
        refused.starts_with("stored data is invalid: id: "),
        "{refused}"
    );
}

#[test]
fn an_attachment_has_an_image_size_only_with_both_sides() {
    let conversation = ConversationId::new().to_string();
    let id = crate::ids::AttachmentId::new().to_string();
    let row = Fake::default()
        .with("id", txt(&id))
        .with("conversation_id", txt(&conversation))
        .with("message_id", Value::Null)
        .with("name", txt("a.png"))
        .with("media_type", txt("image/png"))
        .with("kind", txt("image"))
        .with("size", Value::Int(10))
        .with("sha256", txt("00"))
        .with("image_width", Value::Int(3))
        .with("image_height", Value::Int(2))
        .with("created_at", txt(AT));
    let both = attachment(&row).unwrap();
    assert_eq!(
        both.image_size,
        Some(ImageSize {
            width: 3,
            height: 2
        })
    );
    assert_eq!(both.kind, AttachmentKind::Image);
    let one = row.clone().with("image_height", Value::Null);
    assert_eq!(attachment(&one).unwrap().image_size, None);
    let huge = row.with("image_width", Value::Int(i64::from(u32::MAX) + 1));
    assert_eq!(
        attachment(&huge).unwrap_err().to_string(),
        "stored data is invalid: image_width: out of range integral type conversion attempted"
    );
}

#[test]
fn a_search_row_of_each_stored_kind_is_a_hit_of_that_kind() {
    let conversation = ConversationId::new().to_string();
    let row = |kind: &'static str| {
        Fake::default()
            .with("conversation_id", txt(&conversation))
            .with("title", txt("t"))
            .with("seq", Value::Int(2))
            .with("kind", txt(kind))
            .with("body", txt("hello"))
            .with("created_at", txt(AT))
    };
    let cases = [
        ("user", Some(SearchHitKind::User)),
        ("assistant", Some(SearchHitKind::Assistant)),
        ("tool_call", Some(SearchHitKind::ToolCall)),
        ("tool_result", Some(SearchHitKind::ToolResult)),
        ("attachment", Some(SearchHitKind::Attachment)),
        ("think", None),
    ];
    for (word, kind) in cases {
        assert_eq!(search_hit(&row(word)).ok().map(|h| h.kind), kind, "{word}");
    }
    assert_eq!(
        search_hit(&row("think")).unwrap_err().to_string(),
        "stored data is invalid: kind: unknown search row kind 'think'"
    );
}

fn file_change_row(turn: TurnId) -> Fake {
    let digest = "a".repeat(64);
    Fake::default()
        .with("turn_id", txt(&turn.to_string()))
        .with("path", txt("e.txt"))
        .with("from_path", txt("d.txt"))
        .with("kind", txt("renamed"))
        .with("sha256_before", txt(&digest))
        .with("size_before", Value::Int(2))
        .with("sha256_after", txt(&digest))
        .with("size_after", Value::Int(2))
        .with("not_captured", Value::Null)
        .with("rewind_id", Value::Null)
}

#[test]
fn a_file_change_row_needs_digest_and_size_together_a_known_kind_and_no_negative_size() {
    let turn = TurnId::new();
    let read = file_change(&file_change_row(turn)).unwrap();
    assert_eq!(read.turn_id, turn);
    assert_eq!(read.change.kind, ChangeKind::Renamed);
    assert_eq!(read.change.from.as_deref(), Some("d.txt"));
    assert_eq!(read.change.after.as_ref().map(|s| s.size), Some(2));
    let created = file_change_row(turn)
        .with("kind", txt("created"))
        .with("from_path", Value::Null)
        .with("sha256_before", Value::Null)
        .with("size_before", Value::Null);
    assert_eq!(file_change(&created).unwrap().change.before, None);
    let broken = [
        ("kind", file_change_row(turn).with("kind", txt("moved"))),
        (
            "size_before",
            file_change_row(turn).with("size_before", Value::Null),
        ),
        (
            "sha256_after",
            file_change_row(turn).with("sha256_after", Value::Null),
        ),
        (
            "size_after",
            file_change_row(turn).with("size_after", Value::Int(-1)),
        ),
    ];
    for (column, row) in broken {
        let err = file_change(&row).unwrap_err().to_string();
        assert!(err.contains(column), "{column}: {err}");
    }
}
