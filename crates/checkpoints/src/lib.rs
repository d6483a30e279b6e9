//! Checkpoints of a workspace: every change a tool call makes to the files beneath it
//! can be listed and undone.
//!
//! - [`Workspace`] keeps an index of the workspace between calls (each file's path,
//!   size, modification time and inode, and the SHA-256 of its content). Where the
//!   system gives change notifications (Linux's inotify, on folder handles opened
//!   through the confined module), a capture examines only what they name; otherwise,
//!   and whenever they cannot be trusted, a scan compares the whole tree with the index
//!   and hashes only the files whose stamp changed.
//! - Every content the index knows is kept in a [`ContentStore`], once per SHA-256, so
//!   the state before a call can be brought back whatever the call did. Within the
//!   [`Limits`] (per file, per capture) a content is kept; beyond them the change is
//!   listed as [`NotCaptured`] with its reason, never silently dropped.
//! - [`IgnoreRules`] (`.gitignore` syntax) keep build output out of the index.
//! - [`restore`] brings paths back to their state before a turn: a path whose content
//!   is no longer what the turn left is a conflict, left alone unless forced, and what
//!   a restore replaces is kept first, so the restore can itself be undone.
//!
//! - [`TurnCheckpoints`] is the application's `WorkspaceChanges` port on a workspace:
//!   the pipeline compares it around a step's calls, its contents kept by the
//!   conversation store ([`RepositoryContents`]).
//!
//! - [`rewind`] takes a conversation back to before a turn (files, context or both),
//!   never while a turn of it runs; [`undo_rewind`] undoes the last rewind of files.
//!   [`HomeRewind`] is the application's `ConversationRewind` port on them (the web's
//!   rewind).
//!
//! - [`prune`] is retention: contents older than the age limit or beyond the total
//!   size a home keeps go, oldest first; the changes that needed them are marked.
//!
//! Every access beneath the workspace goes through `smallebot-confined`: paths are
//! resolved beneath a handle on its root, links are never followed, only regular files
//! are read. The pure rules (what a change is, what a restore does to a path) are
//! `smallebot_core::rules::checkpoint`.

mod capture;
mod error;
mod home_rewind;
mod ignore_rules;
mod in_turn;
mod index;
mod limits;
mod prune;
mod restore;
mod rewind;
mod settings;
mod store;
mod targets;
mod watched;

pub use capture::{Capture, NotCaptured, Workspace};
pub use error::CheckpointError;
pub use home_rewind::HomeRewind;
pub use ignore_rules::{DEFAULT_RULES, IgnoreRules};
pub use in_turn::{
    PRUNE_EVERY, RepositoryContents, TurnCheckpoints, open_workspace, open_workspace_with,
    turn_changes,
};
pub use index::Stamp;
pub use limits::Limits;
pub use prune::{PruneReport, prune, prune_logged, prune_now, pruned_reason};
pub use restore::{Conflict, RestoreReport, restore};
pub use rewind::{RewindReport, RewindRequest, RewindScope, rewind, undo_rewind, workspace_of};
pub use settings::{CheckpointSettings, Retention};
pub use store::{ContentStore, FolderStore};
pub use targets::{RestoreTarget, targets};

pub use smallebot_core::rules::checkpoint::{ChangeKind, FileChange, FileState};
