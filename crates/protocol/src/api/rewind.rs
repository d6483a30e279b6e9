//! What a turn did to the workspace's files, and taking it back: the timeline's
//! `file_changes` and `POST /api/conversations/{id}/rewind`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One file a turn's tool calls changed (or a rewind did, under its id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileChangeCard {
    /// The turn it belongs to.
    pub turn_id: String,
    /// The path, relative to the workspace (the new path of a rename).
    pub path: String,
    /// A rename's old path.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub from: Option<String>,
    /// `created`, `modified`, `deleted` or `renamed`.
    pub kind: String,
    /// The size before, in bytes (`null`: no file).
    pub size_before: Option<u64>,
    /// The size after, in bytes (`null`: no file).
    pub size_after: Option<u64>,
    /// Why its contents are not kept (a rewind cannot bring it back), when they are not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub not_captured: Option<String>,
    /// The rewind that made this change (`null`: the turn's own tool calls did).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rewind: Option<String>,
}

/// What a rewind takes back.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum RewindScope {
    /// The files only: the conversation is left as it is.
    #[default]
    Files,
    /// The conversation only: the turns are undone, the files left as they are.
    Conversation,
    /// Both.
    Both,
}

/// `POST /api/conversations/{id}/rewind`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RewindBody {
    /// The first turn to take back: its number (1 for the first) or its id; absent: the
    /// last turn.
    #[serde(default)]
    pub to_turn: Option<String>,
    /// What to take back (default `files`).
    #[serde(default)]
    pub scope: RewindScope,
    /// Replace files changed since the turns too (otherwise they are conflicts, kept).
    #[serde(default)]
    pub force: bool,
    /// Undo the conversation's last rewind of its files instead (`to_turn` and `scope`
    /// are then not allowed).
    #[serde(default)]
    pub undo: bool,
}

/// A path a rewind left alone, or could not bring back, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PathReason {
    /// The path, relative to the workspace.
    pub path: String,
    /// Why.
    pub reason: String,
}

/// The answer of `POST /api/conversations/{id}/rewind`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RewindAnswer {
    /// The turns taken back (the chosen one and those after it), oldest first.
    pub turns: Vec<String>,
    /// The paths brought back to their state before those turns.
    pub restored: Vec<String>,
    /// The paths changed since the turns, left alone (send `force` to replace them).
    pub conflicts: Vec<PathReason>,
    /// The changes of those turns whose contents were not kept: not brought back.
    pub not_captured: Vec<PathReason>,
    /// The turns undone in the conversation, newest first.
    pub undone: Vec<String>,
    /// The id the rewind's own changes are stored under (undo it with `{"undo":
    /// true}`), when it changed files.
    pub rewind_id: Option<String>,
}

/// The answer of `GET /api/conversations/{id}/turns/{turn_id}/diff?path=`: what a turn
/// did to one file's text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FileDiff {
    /// The path, relative to the workspace.
    pub path: String,
    /// The change as a fenced ` ```diff ` block (unified hunks, lines starting ` `,
    /// `-` or `+`); `null` when there is none to show (`note` says why).
    pub diff: Option<String>,
    /// Why no diff is shown (a binary or very large file, contents not kept, only the
    /// name changed).
    pub note: Option<String>,
}
