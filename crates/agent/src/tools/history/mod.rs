//! History tools: `SearchHistory` (full-text search over stored history, shown with one
//! row of context) and `ReadConversationData` (the current conversation's timeline as
//! JSON). The match loading and formatting in [`matches`] is shared with the host's
//! `smallebot conversations search` and the chat REPL's `/search`.

mod matches;
mod names;
mod search;
mod timeline;

pub use matches::{
    MatchLine, SNIPPET_MAX_CHARS, SearchMatch, find_matches, format_matches, format_matches_with,
    search_and_format, search_for_people,
};
pub use search::SearchHistory;
pub use timeline::ReadConversationData;
