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
/// place among `turns`); empty when no turn changed a file.
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
        for change in mine {
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
}
