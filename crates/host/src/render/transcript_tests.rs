use super::*;

/// Answers shown as their escaped text (no colours).
fn plain() -> AnswerView {
    AnswerView::new(crate::render::Style { ansi: false }, Default::default())
}
use smallebot_core::entities::{Message, ThinkBlock, ToolCall, ToolCallStatus};
use smallebot_core::ids::{ConversationId, MessageId, ThinkBlockId, ToolCallId};

fn message(turn: TurnId, seq: i64, role: Role, text: &str) -> HistoryRow {
    HistoryRow::Message(Message {
        id: MessageId::new(),
        conversation_id: ConversationId::new(),
        turn_id: turn,
        seq,
        role,
        content: text.into(),
        token_count: 1,
        created_at: chrono::Utc::now(),
        replaced_by: None,
        is_edited: false,
    })
}

#[test]
fn the_last_turns_are_shown_escaped_without_reasoning_or_empty_rows() {
    let turns: Vec<TurnId> = (0..4).map(|_| TurnId::new()).collect();
    let mut rows = Vec::new();
    for (i, turn) in turns.iter().enumerate() {
        let seq = i as i64 * 10;
        rows.push(message(
            *turn,
            seq + 1,
            Role::User,
            &format!("question {i}"),
        ));
        rows.push(message(*turn, seq + 2, Role::Assistant, ""));
        rows.push(HistoryRow::ThinkBlock(ThinkBlock {
            id: ThinkBlockId::new(),
            conversation_id: ConversationId::new(),
            turn_id: *turn,
            seq: seq + 3,
            content: "secret reasoning".into(),
            created_at: chrono::Utc::now(),
        }));
        rows.push(HistoryRow::ToolCall(ToolCall {
            id: ToolCallId::new(),
            conversation_id: ConversationId::new(),
            turn_id: *turn,
            seq: seq + 4,
            call_id: "c".into(),
            tool_name: "ReadFile".into(),
            arguments: r#"{"path":"a.txt"}"#.into(),
            result: Some("content".into()),
            status: ToolCallStatus::Ok,
            token_count: 1,
            started_at: chrono::Utc::now(),
            completed_at: None,
        }));
        rows.push(message(
            *turn,
            seq + 5,
            Role::Assistant,
            &format!("answer {i}\x1b[2J"),
        ));
    }
    let shown = recent_transcript(&rows, 3, &[], &plain());
    let expected = "… 1 earlier turn(s)\n".to_owned()
        + &(1..4)
            .map(|i| {
                format!(
                    "› question {i}\n  ⚙ ReadFile({{\"path\":\"a.txt\"}}) [ok]\nanswer {i}^[[2J\n"
                )
            })
            .collect::<String>();
    assert_eq!(shown, expected);
    assert_eq!(recent_transcript(&[], 3, &[], &plain()), "");
}

#[test]
fn what_was_typed_in_an_undone_turn_is_marked() {
    let (kept, undone) = (TurnId::new(), TurnId::new());
    let rows = [
        message(kept, 1, Role::User, "first"),
        message(kept, 2, Role::Assistant, "one"),
        message(undone, 3, Role::User, "second"),
        message(undone, 4, Role::Assistant, "two"),
    ];
    assert_eq!(
        recent_transcript(&rows, 3, &[undone], &plain()),
        "› first\none\n› [undone] second\ntwo\n"
    );
}
