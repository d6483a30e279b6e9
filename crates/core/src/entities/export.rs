//! A conversation gathered whole, for an export.

use super::{AnswerVersion, Conversation, HistoryRow, Turn};

/// A conversation with every turn and every stored row: what an export is made from
/// (the application gathers it, `rules::export` writes it as Markdown, the web crate
/// as JSON).
#[derive(Debug, Clone, PartialEq)]
pub struct ConversationExport {
    /// The conversation, its compression summary included.
    pub conversation: Conversation,
    /// Its turns in `seq` order.
    pub turns: Vec<Turn>,
    /// Every stored row in `seq` order (replaced messages and reasoning included).
    pub rows: Vec<HistoryRow>,
    /// The answers edits and regenerations replaced, oldest first.
    pub answer_versions: Vec<AnswerVersion>,
}
