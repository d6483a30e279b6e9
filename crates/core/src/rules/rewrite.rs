//! The rules of rewriting a conversation's end — edit, regenerate, undo — decided on
//! rows read from the store. The store then applies the decision with a primitive
//! guarded by the state it was decided on (see
//! [`RewriteGuard`](crate::entities::RewriteGuard)).

use crate::RepositoryError;
use crate::entities::{Message, Role, Seq, Turn, TurnContents};
use crate::ids::{MessageId, TurnId};

/// Why a rewrite is refused; the text is what the person sees (inside
/// [`RepositoryError::Conflict`]).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    /// Only the current version of a person's message can be edited.
    #[error(
        "message {0} is not a current user message; only the person's latest version of a \
         message can be edited"
    )]
    NotCurrentUserMessage(MessageId),
    /// Compression already summarized the rows (`.0` names them: "this message", …).
    #[error("{0} is already summarized by context compression and can no longer be changed")]
    Summarized(&'static str),
    /// A turn without a current user message cannot be answered again.
    #[error("turn {0} has no current user message")]
    NoUserMessage(TurnId),
}

impl From<Refusal> for RepositoryError {
    fn from(refusal: Refusal) -> Self {
        Self::Conflict(refusal.to_string())
    }
}

/// One running turn per conversation: refuses with [`RepositoryError::TurnRunning`]
/// while `running` is the conversation's running turn.
///
/// # Errors
/// [`RepositoryError::TurnRunning`] when a turn runs.
pub fn ensure_no_running_turn(running: Option<Turn>) -> Result<(), RepositoryError> {
    match running {
        Some(turn) => Err(RepositoryError::TurnRunning(Box::new(turn))),
        None => Ok(()),
    }
}

/// Whether rows through `seq` are summarized by a compression through `boundary`.
#[must_use]
pub fn summarized(seq: Seq, boundary: Seq) -> bool {
    seq <= boundary
}

/// Whether a turn is summarized: its last row (the turn itself when it has none) is at
/// or before the boundary.
#[must_use]
pub fn turn_summarized(contents: &TurnContents, boundary: Seq) -> bool {
    summarized(contents.last_row_seq.unwrap_or(contents.turn.seq), boundary)
}

/// Edit: only a current (not replaced) user message after the boundary.
///
/// # Errors
/// [`Refusal::NotCurrentUserMessage`], then [`Refusal::Summarized`].
pub fn check_edit(message: &Message, boundary: Seq) -> Result<(), Refusal> {
    if message.role != Role::User || message.replaced_by.is_some() {
        return Err(Refusal::NotCurrentUserMessage(message.id));
    }
    if summarized(message.seq, boundary) {
        return Err(Refusal::Summarized("this message"));
    }
    Ok(())
}

/// Regenerate: the user message the turn is answered from again (its first current
/// user message), for a turn not summarized.
///
/// # Errors
/// [`Refusal::NoUserMessage`], then [`Refusal::Summarized`].
pub fn regeneration_message(contents: &TurnContents, boundary: Seq) -> Result<&Message, Refusal> {
    let message = contents
        .messages
        .iter()
        .filter(|m| m.role == Role::User && m.replaced_by.is_none())
        .min_by_key(|m| m.seq)
        .ok_or(Refusal::NoUserMessage(contents.turn.id))?;
    if turn_summarized(contents, boundary) {
        return Err(Refusal::Summarized("this turn"));
    }
    Ok(message)
}

/// Undo: the turn undo takes out of the context — the last turn not undone yet.
#[must_use]
pub fn undo_candidate(turns: &[Turn]) -> Option<&Turn> {
    turns
        .iter()
        .filter(|t| t.undone_at.is_none())
        .max_by_key(|t| t.seq)
}

/// Undo: refuses a last turn that compression already summarized.
///
/// # Errors
/// [`Refusal::Summarized`].
pub fn check_undo(contents: &TurnContents, boundary: Seq) -> Result<(), Refusal> {
    if turn_summarized(contents, boundary) {
        return Err(Refusal::Summarized("the last turn"));
    }
    Ok(())
}

#[cfg(test)]
#[path = "rewrite_tests.rs"]
mod tests;
