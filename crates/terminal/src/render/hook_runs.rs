//! The hooks each turn ran (hooks.json), as `conversations show` and `/show N` list
//! them.

use std::fmt::Write as _;

use smallebot_core::entities::{HookRun, Turn};

/// One run on a line: its event, its tool, its command, how it ended, how long it
/// took and what it decided (`PreToolUse ExecuteCommand: sh check.sh -> exit 2, 12
/// ms, block`).
#[must_use]
pub fn hook_run_line(run: &HookRun) -> String {
    let tool = run
        .tool_name
        .as_deref()
        .map_or_else(String::new, |tool| format!(" {tool}"));
    let exit = run
        .exit_code
        .map_or_else(|| "killed".to_owned(), |code| format!("exit {code}"));
    let decision = if run.decision.is_empty() {
        String::new()
    } else {
        format!(", {}", run.decision)
    };
    format!(
        "{}{tool}: {} -> {exit}, {} ms{decision}",
        run.event, run.command, run.duration_ms
    )
}

/// "Hooks run", turn by turn (numbered as the timeline numbers them: by their place
/// among `turns`), then those outside any turn; empty when no hook ran.
#[must_use]
pub fn hook_runs_block(turns: &[Turn], runs: &[HookRun]) -> String {
    let mut out = String::new();
    let mut group = |title: String, mine: Vec<&HookRun>| {
        if mine.is_empty() {
            return;
        }
        if out.is_empty() {
            out.push_str("Hooks run:\n");
        }
        let _ = writeln!(out, "  {title}:");
        for run in mine {
            let _ = writeln!(out, "    {}", hook_run_line(run));
        }
    };
    for (number, turn) in turns.iter().enumerate() {
        let mine = runs.iter().filter(|r| r.turn_id == Some(turn.id)).collect();
        group(format!("turn {} ({})", number + 1, turn.id), mine);
    }
    let known = |run: &&HookRun| {
        run.turn_id
            .is_some_and(|id| turns.iter().any(|t| t.id == id))
    };
    let outside = runs.iter().filter(|r| !known(r)).collect();
    group("outside turns (prompts, sessions)".to_owned(), outside);
    out
}

#[cfg(test)]
mod tests {
    use chrono::Utc;
    use smallebot_core::ids::{ConversationId, TurnId};

    use super::*;

    fn run(turn: Option<TurnId>, event: &str, exit: Option<i32>, decision: &str) -> HookRun {
        HookRun {
            conversation_id: ConversationId::new(),
            turn_id: turn,
            event: event.to_owned(),
            tool_name: turn.map(|_| "ExecuteCommand".to_owned()),
            call_id: None,
            command: "sh check.sh".to_owned(),
            exit_code: exit,
            duration_ms: 12,
            decision: decision.to_owned(),
            at: Utc::now(),
        }
    }

    #[test]
    fn a_run_is_one_line() {
        let turn = Some(TurnId::new());
        let cases = [
            (
                run(turn, "PreToolUse", Some(2), "block"),
                "PreToolUse ExecuteCommand: sh check.sh -> exit 2, 12 ms, block",
            ),
            (
                run(None, "UserPromptSubmit", Some(0), ""),
                "UserPromptSubmit: sh check.sh -> exit 0, 12 ms",
            ),
            (
                run(turn, "Stop", None, "warning"),
                "Stop ExecuteCommand: sh check.sh -> killed, 12 ms, warning",
            ),
        ];
        for (run, expected) in cases {
            assert_eq!(hook_run_line(&run), expected);
        }
    }

    #[test]
    fn runs_are_grouped_by_turn_then_outside_turns() {
        assert_eq!(hook_runs_block(&[], &[]), "");
        let turn = Turn {
            id: TurnId::new(),
            conversation_id: ConversationId::new(),
            seq: 1,
            thinking_mode: false,
            status: smallebot_core::entities::TurnStatus::Completed,
            error: None,
            created_at: Utc::now(),
            completed_at: None,
            lease: None,
            undone_at: None,
            cut: None,
        };
        let runs = [
            run(None, "UserPromptSubmit", Some(0), ""),
            run(Some(turn.id), "PreToolUse", Some(2), "block"),
        ];
        let block = hook_runs_block(std::slice::from_ref(&turn), &runs);
        let expected = format!(
            "Hooks run:\n  turn 1 ({}):\n    PreToolUse ExecuteCommand: sh check.sh -> exit 2, 12 ms, block\n  \
             outside turns (prompts, sessions):\n    UserPromptSubmit: sh check.sh -> exit 0, 12 ms\n",
            turn.id
        );
        assert_eq!(block, expected);
    }
}
