use chrono::TimeZone;

use super::*;
use crate::entities::{Conversation, Message, ThinkBlock, ToolCallStatus, Turn};
use crate::ids::{ConversationId, MessageId, ThinkBlockId, ToolCallId, TurnId};
use crate::time::Timestamp;

fn at() -> Timestamp {
    chrono::Utc
        .with_ymd_and_hms(2026, 1, 2, 3, 4, 5)
        .single()
        .unwrap()
}

fn conversation(summary: Option<&str>) -> Conversation {
    Conversation {
        id: ConversationId::new(),
        user_name: "alice".to_owned(),
        title: "Trip planning".to_owned(),
        created_at: at(),
        updated_at: at(),
        compressed_context: summary.map(str::to_owned),
        compressed_at: summary.map(|_| at()),
        compressed_through_seq: summary.map(|_| 1),
        context_tokens: 0,
        model: None,
        provisional_counts_from: None,
        parent: None,
    }
}

fn turn(c: &Conversation, seq: i64, status: TurnStatus, error: Option<&str>) -> Turn {
    Turn {
        id: TurnId::new(),
        conversation_id: c.id,
        seq,
        thinking_mode: false,
        status,
        error: error.map(str::to_owned),
        created_at: at(),
        completed_at: Some(at()),
        lease: None,
        undone_at: None,
        cut: None,
    }
}

fn message(turn: &Turn, seq: i64, role: Role, content: &str) -> HistoryRow {
    HistoryRow::Message(Message {
        id: MessageId::new(),
        conversation_id: turn.conversation_id,
        turn_id: turn.id,
        seq,
        role,
        content: content.to_owned(),
        token_count: 1,
        created_at: at(),
        replaced_by: None,
        is_edited: false,
        attachments: Vec::new(),
    })
}

fn call(turn: &Turn, seq: i64, arguments: &str, result: Option<&str>) -> HistoryRow {
    HistoryRow::ToolCall(ToolCall {
        id: ToolCallId::new(),
        conversation_id: turn.conversation_id,
        turn_id: turn.id,
        seq,
        call_id: "c1".to_owned(),
        tool_name: "ExecuteCommand".to_owned(),
        arguments: arguments.to_owned(),
        result: result.map(str::to_owned),
        status: ToolCallStatus::Ok,
        token_count: 1,
        started_at: at(),
        completed_at: Some(at()),
    })
}

/// The Markdown after its first two lines (title and the exported-from line).
fn body(export: &ConversationExport) -> String {
    let text = markdown(export);
    assert!(text.starts_with("# Trip planning\n\n_Exported from SmallEBot: conversation `"));
    assert!(
        text.contains("of alice, started 2026-01-02T03:04:05"),
        "{text}"
    );
    text.splitn(5, '\n').nth(4).unwrap().to_owned()
}

#[test]
fn turns_tool_calls_and_outcomes_are_written_in_order() {
    let c = conversation(None);
    let done = turn(&c, 1, TurnStatus::Completed, None);
    let failed = turn(
        &c,
        5,
        TurnStatus::Failed,
        Some("the model\nwas unreachable"),
    );
    let stopped = turn(&c, 8, TurnStatus::Cancelled, None);
    let mut undone = turn(&c, 11, TurnStatus::Completed, None);
    undone.undone_at = Some(at());
    let mut replaced = message(&done, 2, Role::User, "old text");
    if let HistoryRow::Message(m) = &mut replaced {
        m.replaced_by = Some(MessageId::new());
    }
    let think = HistoryRow::ThinkBlock(ThinkBlock {
        id: ThinkBlockId::new(),
        conversation_id: c.id,
        turn_id: done.id,
        seq: 4,
        content: "secret reasoning".to_owned(),
        created_at: at(),
    });
    let export = ConversationExport {
        conversation: c,
        turns: vec![
            done.clone(),
            failed.clone(),
            stopped.clone(),
            undone.clone(),
        ],
        rows: vec![
            replaced,
            message(&done, 2, Role::User, "Run `ls`"),
            call(&done, 3, r#"{"command":"ls"}"#, Some("a.txt\nb ``` c\n")),
            think,
            message(&done, 4, Role::Assistant, "Two files: **a.txt** and b.\n\n"),
            message(&failed, 6, Role::User, "again"),
            message(&stopped, 9, Role::User, "write a poem"),
            message(&stopped, 10, Role::Assistant, "Roses are"),
            message(&undone, 12, Role::User, "never mind"),
        ],
        answer_versions: Vec::new(),
    };
    let expected = "## You\n\nRun `ls`\n\n\
        ### Tool: ExecuteCommand (ok)\n\n```json\n{\"command\":\"ls\"}\n```\n\n\
        ````text\na.txt\nb ``` c\n````\n\n\
        ## Assistant\n\nTwo files: **a.txt** and b.\n\n\
        ## You\n\nagain\n\n\
        > **Failed:** the model was unreachable\n\n\
        ## You\n\nwrite a poem\n\n## Assistant\n\nRoses are\n\n\
        > **Stopped** before the answer ended.\n\n\
        > _Undone: this turn was taken out of the context._\n\n\
        ## You\n\nnever mind\n";
    assert_eq!(body(&export), expected);
}

#[test]
fn the_summary_comes_first_and_an_empty_conversation_is_its_title() {
    let cases = [
        (
            Some("They planned Oslo.\n"),
            "## Summary of earlier turns\n\nThey planned Oslo.\n",
        ),
        (None, ""),
    ];
    for (summary, expected) in cases {
        let export = ConversationExport {
            conversation: conversation(summary),
            turns: Vec::new(),
            rows: Vec::new(),
            answer_versions: Vec::new(),
        };
        let text = markdown(&export);
        assert!(text.ends_with('\n'), "{text:?}");
        let rest = text.splitn(5, '\n').nth(4).unwrap_or("");
        assert_eq!(rest, expected, "{summary:?}");
    }
}

#[test]
fn file_names_keep_the_titles_letters_and_digits() {
    let long = "a".repeat(100);
    let cases = [
        ("Trip planning", "md", "Trip-planning.md"),
        ("  Q3: plan / review?! ", "json", "Q3-plan-review.json"),
        ("日本語", "md", "conversation.md"),
        ("../../etc/passwd", "md", "etc-passwd.md"),
        ("\"quoted\"; x=1", "md", "quoted-x-1.md"),
        (long.as_str(), "md", &format!("{}.md", "a".repeat(60))),
    ];
    for (title, extension, expected) in cases {
        assert_eq!(file_name(title, extension), expected, "{title:?}");
    }
}
