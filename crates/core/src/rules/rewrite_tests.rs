use super::*;
use crate::entities::TurnStatus;
use crate::ids::ConversationId;

fn turn(seq: Seq, undone: bool) -> Turn {
    Turn {
        id: TurnId::new(),
        conversation_id: ConversationId::new(),
        seq,
        thinking_mode: false,
        status: TurnStatus::Completed,
        error: None,
        created_at: chrono::Utc::now(),
        completed_at: None,
        lease: None,
        undone_at: undone.then(chrono::Utc::now),
        cut: None,
    }
}

fn message(seq: Seq, role: Role, replaced: bool) -> Message {
    Message {
        id: MessageId::new(),
        conversation_id: ConversationId::new(),
        turn_id: TurnId::new(),
        seq,
        role,
        content: "text".into(),
        token_count: 1,
        created_at: chrono::Utc::now(),
        replaced_by: replaced.then(MessageId::new),
        is_edited: false,
        attachments: Vec::new(),
    }
}

fn contents(turn_seq: Seq, messages: Vec<Message>, last_row_seq: Option<Seq>) -> TurnContents {
    TurnContents {
        turn: turn(turn_seq, false),
        messages,
        last_row_seq,
    }
}

#[test]
fn edit_takes_only_a_current_user_message_after_the_boundary() {
    // (role, replaced, seq, boundary, expected)
    let cases: [(Role, bool, Seq, Seq, Option<&str>); 6] = [
        (Role::User, false, 5, 0, None),
        (Role::User, false, 5, 4, None),
        (Role::User, false, 5, 5, Some("summarized")),
        (Role::User, false, 2, 9, Some("summarized")),
        (Role::User, true, 5, 0, Some("not a current user message")),
        (
            Role::Assistant,
            false,
            5,
            0,
            Some("not a current user message"),
        ),
    ];
    for (role, replaced, seq, boundary, expected) in cases {
        let m = message(seq, role, replaced);
        let got = check_edit(&m, boundary).err().map(|e| e.to_string());
        match (expected, got) {
            (None, None) => {}
            (Some(want), Some(got)) => assert!(got.contains(want), "{got} lacks {want}"),
            (want, got) => panic!("{role:?} {replaced} {seq} {boundary}: {want:?} vs {got:?}"),
        }
    }
}

#[test]
fn the_refusals_keep_their_texts() {
    let id = MessageId::new();
    assert_eq!(
        RepositoryError::from(Refusal::NotCurrentUserMessage(id)).to_string(),
        format!(
            "rejected: message {id} is not a current user message; only the person's latest \
             version of a message can be edited"
        )
    );
    assert_eq!(
        RepositoryError::from(Refusal::Summarized("this turn")).to_string(),
        "rejected: this turn is already summarized by context compression and can no longer \
         be changed"
    );
    let turn_id = TurnId::new();
    assert_eq!(
        Refusal::NoUserMessage(turn_id).to_string(),
        format!("turn {turn_id} has no current user message")
    );
}

#[test]
fn regeneration_answers_the_first_current_user_message_of_a_live_turn() {
    let first = message(2, Role::User, false);
    let replaced = message(1, Role::User, true);
    let answer = message(3, Role::Assistant, false);
    // (messages, last row, boundary, expected message or error)
    type Case = (
        Vec<Message>,
        Option<Seq>,
        Seq,
        Result<MessageId, &'static str>,
    );
    let cases: Vec<Case> = vec![
        (
            vec![first.clone(), answer.clone()],
            Some(3),
            0,
            Ok(first.id),
        ),
        (
            vec![replaced.clone(), first.clone()],
            Some(3),
            2,
            Ok(first.id),
        ),
        (vec![first.clone()], Some(3), 3, Err("summarized")),
        (
            vec![answer.clone()],
            Some(3),
            0,
            Err("no current user message"),
        ),
        (
            vec![replaced.clone()],
            Some(3),
            9,
            Err("no current user message"),
        ),
        (vec![], None, 0, Err("no current user message")),
    ];
    for (messages, last, boundary, expected) in cases {
        let c = contents(1, messages, last);
        let got = regeneration_message(&c, boundary)
            .map(|m| m.id)
            .map_err(|e| e.to_string());
        match (expected, got) {
            (Ok(want), Ok(got)) => assert_eq!(want, got),
            (Err(want), Err(got)) => assert!(got.contains(want), "{got} lacks {want}"),
            (want, got) => panic!("{want:?} vs {got:?}"),
        }
    }
}

#[test]
fn undo_takes_the_last_turn_not_undone_unless_summarized() {
    let turns = [turn(1, false), turn(4, false), turn(7, true)];
    assert_eq!(undo_candidate(&turns).map(|t| t.seq), Some(4));
    assert_eq!(undo_candidate(&[turn(3, true)]).map(|t| t.seq), None);
    assert_eq!(undo_candidate(&[]).map(|t| t.seq), None);
    // (turn seq, last row, boundary, refused)
    let cases = [
        (4, Some(6), 5, false),
        (4, Some(6), 6, true),
        (4, None, 3, false),
        (4, None, 4, true),
    ];
    for (seq, last, boundary, refused) in cases {
        let got = check_undo(&contents(seq, Vec::new(), last), boundary);
        assert_eq!(got.is_err(), refused, "{seq} {last:?} {boundary}");
    }
}

#[test]
fn a_running_turn_refuses() {
    assert!(ensure_no_running_turn(None).is_ok());
    let running = turn(3, false);
    assert!(matches!(
        ensure_no_running_turn(Some(running)),
        Err(RepositoryError::TurnRunning(_))
    ));
}
