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
        attachments: Vec::new(),
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
    let shown = recent_transcript(&rows, 3, &[], &[], &plain());
    let expected = "… 1 earlier turn(s) — /history shows them\n".to_owned()
        + &(1..4)
            .map(|i| {
                format!(
                    "› question {i}\n  ⚙ ReadFile({{\"path\":\"a.txt\"}}) [ok]\nanswer {i}^[[2J\n"
                )
            })
            .collect::<String>();
    assert_eq!(shown, expected);
    assert_eq!(recent_transcript(&[], 3, &[], &[], &plain()), "");
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
        recent_transcript(&rows, 3, &[undone], &[], &plain()),
        "› first\none\n› [undone] second\ntwo\n"
    );
}

#[test]
fn turns_that_did_not_complete_are_marked_and_long_messages_bounded() {
    let (cancelled, failed, long) = (TurnId::new(), TurnId::new(), TurnId::new());
    let many_lines: String = (1..=25).map(|i| format!("line {i}\n")).collect();
    let rows = [
        message(cancelled, 1, Role::User, "first"),
        message(cancelled, 2, Role::Assistant, "half an ans"),
        message(failed, 3, Role::User, "second"),
        message(long, 4, Role::User, "third"),
        message(long, 5, Role::Assistant, &many_lines),
    ];
    let ended = [
        (cancelled, "cancelled — partial answer kept".to_owned()),
        (failed, "failed: the model is down".to_owned()),
    ];
    let shown = recent_transcript(&rows, 3, &[], &ended, &plain());
    let expected_long: String = (1..=20).map(|i| format!("line {i}\n")).collect();
    assert_eq!(
        shown,
        format!(
            "› first\nhalf an ans\n(cancelled — partial answer kept)\n› second\n\
             (failed: the model is down)\n› third\n{expected_long}… (5 more lines — /history)\n"
        )
    );
}

#[test]
fn attachments_are_shown_by_their_labels_under_what_was_typed() {
    use smallebot_core::entities::{Attachment, AttachmentKind, ImageSize};
    use smallebot_core::ids::AttachmentId;
    let turn = TurnId::new();
    let attachment = |name: &str, kind, size, image_size| Attachment {
        id: AttachmentId::new(),
        conversation_id: ConversationId::new(),
        message_id: None,
        name: name.into(),
        media_type: "x".into(),
        kind,
        size,
        sha256: String::new(),
        image_size,
        created_at: chrono::Utc::now(),
    };
    let mut typed = message(turn, 1, Role::User, "");
    if let HistoryRow::Message(m) = &mut typed {
        m.attachments = vec![
            attachment(
                "shot.png",
                AttachmentKind::Image,
                4000,
                Some(ImageSize {
                    width: 1280,
                    height: 720,
                }),
            ),
            attachment("spec.pdf", AttachmentKind::File, 12 * 1024, None),
        ];
    }
    let rows = [typed, message(turn, 2, Role::Assistant, "seen")];
    let shown = recent_transcript(&rows, 3, &[], &[], &plain());
    assert_eq!(
        shown,
        "› \n  [image: shot.png 1280×720]\n  [file: spec.pdf 12 KB]\nseen\n"
    );
}
