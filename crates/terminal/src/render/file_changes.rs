//! The files each turn changed in its workspace (checkpoints), as `conversations show`
//! lists them.

use std::fmt::Write as _;

use smallebot_core::entities::{Turn, TurnFileChange};
use smallebot_core::rules::checkpoint::{ChangeKind, FileState};

/// A state's size in words (`-` when nothing was there).
fn size(state: Option<&FileState>) -> String {
    state.map_or_else(|| "-".to_owned(), |s| format!("{} B", s.size))
}

/// One change on a line: its kind, its path (a rename's old path first), its sizes
/// before and after, or why it was not captured.
#[must_use]
pub fn change_line(stored: &TurnFileChange) -> String {
    let change = &stored.change;
    let path = match (&change.from, change.kind) {
        (Some(from), ChangeKind::Renamed) => format!("{from} -> {}", change.path),
        _ => change.path.clone(),
    };
    let detail = match &stored.not_captured {
        Some(reason) => format!("not captured: {reason}"),
        None => format!(
            "{} -> {}",
            size(change.before.as_ref()),
            size(change.after.as_ref())
        ),
    };
    format!("{:<8} {path}  ({detail})", change.kind.as_str())
}

/// "Files changed", turn by turn (numbered as the timeline numbers them: by their
/// place among `turns`), each rewind's changes under its id after the turn's own;
/// empty when no turn changed a file.
#[must_use]
pub fn file_changes_block(turns: &[Turn], changes: &[TurnFileChange]) -> String {
    let mut out = String::new();
    for (number, turn) in turns.iter().enumerate() {
        let mine: Vec<&TurnFileChange> = changes.iter().filter(|c| c.turn_id == turn.id).collect();
        if mine.is_empty() {
            continue;
        }
        if out.is_empty() {
            out.push_str("Files changed:\n");
        }
        let _ = writeln!(out, "  turn {} ({}):", number + 1, turn.id);
        let mut group: Option<&str> = None;
        for change in mine {
            // A rewind's own changes follow the turn's, under the rewind's id.
            if change.rewind.as_deref() != group {
                group = change.rewind.as_deref();
                if let Some(rewind) = group {
                    let _ = writeln!(out, "   {rewind} (undo: rewind --undo):");
                }
            }
            let _ = writeln!(out, "    {}", change_line(change));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use smallebot_core::ids::TurnId;
    use smallebot_core::rules::checkpoint::FileChange;

    use super::*;

    fn state(size: u64) -> Option<FileState> {
        Some(FileState {
            sha256: "a".repeat(64),
            size,
        })
    }

    #[test]
    fn lines_name_kind_paths_and_sizes_or_the_reason() {
        let turn = TurnId::new();
        let change = |path: &str, from: Option<&str>, kind, before, after| {
            TurnFileChange::captured(
                turn,
                FileChange {
                    path: path.to_owned(),
                    from: from.map(str::to_owned),
                    kind,
                    before,
                    after,
                },
            )
        };
        let rows = [
            (
                change("a.txt", None, ChangeKind::Created, None, state(2)),
                "created  a.txt  (- -> 2 B)",
            ),
            (
                change("c.txt", None, ChangeKind::Deleted, state(3), None),
                "deleted  c.txt  (3 B -> -)",
            ),
            (
                change(
                    "e.txt",
                    Some("d.txt"),
                    ChangeKind::Renamed,
                    state(2),
                    state(2),
                ),
                "renamed  d.txt -> e.txt  (2 B -> 2 B)",
            ),
            (
                TurnFileChange::not_captured(turn, "big", ChangeKind::Modified, "too big"),
                "modified big  (not captured: too big)",
            ),
        ];
        for (stored, want) in rows {
            assert_eq!(change_line(&stored), want);
        }
    }

    #[test]
    fn a_rewinds_changes_stand_under_its_id() {
        let turn = Turn {
            id: TurnId::new(),
            conversation_id: smallebot_core::ids::ConversationId::new(),
            seq: 1,
            thinking_mode: false,
            status: smallebot_core::entities::TurnStatus::Completed,
            error: None,
            created_at: chrono::Utc::now(),
            completed_at: None,
            lease: None,
            undone_at: None,
            cut: None,
        };
        let created = TurnFileChange::captured(
            turn.id,
            FileChange {
                path: "a".to_owned(),
                from: None,
                kind: ChangeKind::Created,
                before: None,
                after: state(1),
            },
        );
        let mut removed = TurnFileChange::captured(
            turn.id,
            FileChange {
                path: "a".to_owned(),
                from: None,
                kind: ChangeKind::Deleted,
                before: state(1),
                after: None,
            },
        );
        removed.rewind = Some("rewind-9".to_owned());
        let block = file_changes_block(std::slice::from_ref(&turn), &[created, removed]);
        let want = format!(
            "Files changed:\n  turn 1 ({}):\n    created  a  (- -> 1 B)\n   \
             rewind-9 (undo: rewind --undo):\n    deleted  a  (1 B -> -)\n",
            turn.id
        );
        assert_eq!(block, want);
    }
}
