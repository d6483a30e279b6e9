//! The names of the history tools, for the tools themselves and for the search, which
//! never shows their calls as hits (they quote earlier searches).

/// `SearchHistory`'s name.
pub(super) const SEARCH_HISTORY: &str = "SearchHistory";
/// `ReadConversationData`'s name.
pub(super) const READ_CONVERSATION_DATA: &str = "ReadConversationData";
