//! The file changes a turn made to its workspace, as stored.

use crate::ids::TurnId;
use crate::rules::checkpoint::{ChangeKind, FileChange};

/// One change a turn made to a file of its workspace, as its conversation lists it.
/// Either its contents are kept on both sides (`not_captured` is `None`: a rewind can
/// undo it) or the reason they are not is given (`before`/`after` then say only what
/// is known).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnFileChange {
    /// The turn that made it.
    pub turn_id: TurnId,
    /// What changed.
    pub change: FileChange,
    /// Why its contents are not kept (a rewind cannot undo it), if they are not.
    pub not_captured: Option<String>,
    /// The rewind that made it (stored on the conversation's last turn at the time),
    /// `None` for a change the turn's tool calls made.
    pub rewind: Option<String>,
}

impl TurnFileChange {
    /// A change whose contents are kept.
    #[must_use]
    pub fn captured(turn_id: TurnId, change: FileChange) -> Self {
        Self {
            turn_id,
            change,
            not_captured: None,
            rewind: None,
        }
    }

    /// A change whose contents are not kept, and why.
    #[must_use]
    pub fn not_captured(turn_id: TurnId, path: &str, kind: ChangeKind, reason: &str) -> Self {
        Self {
            turn_id,
            change: FileChange {
                path: path.to_owned(),
                from: None,
                kind,
                before: None,
                after: None,
            },
            not_captured: Some(reason.to_owned()),
            rewind: None,
        }
    }
}
