//! Plain-text rendering of stored conversations for the terminal.

mod timeline;

pub use timeline::{conversation_line, render_timeline};
