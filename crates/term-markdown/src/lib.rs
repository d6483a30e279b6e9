//! Markdown answers rendered for a terminal as they stream.
//!
//! The text is cut into units ([`split`]): a paragraph, a heading, one top-level list
//! item, a quote, a table, a rule, each line of a fenced code block. A finished unit is
//! committed — rendered once and never drawn again; the unit still open is drawn and
//! redrawn in place as text arrives ([`LiveMarkdown`]). Units are parsed with
//! pulldown-cmark ([`tree`]), laid out to the terminal's width (`layout`: headings by
//! level, numbered and nested lists, quotes, rules), word-wrapped at spaces ([`wrap`]),
//! tables aligned or shown as records when too wide ([`table`]), code highlighted by
//! syntect with grammars loaded on the first code block ([`Highlighter`]).
//!
//! Everything from the model is printed through `escape_controls`: the only escapes
//! in the output are the renderer's own (colours, and cursor movement over the open
//! unit's lines).

mod compose;
mod highlight;
mod layout;
mod live;
mod paragraph;
mod rust_code;
pub mod split;
pub mod style;
pub mod table;
pub mod tree;
pub mod wrap;

pub use highlight::Highlighter;
pub use live::{LiveMarkdown, Size, render_document};
