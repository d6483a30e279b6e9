//! Plain-text rendering of stored conversations and live events for the terminal.

mod events;
mod timeline;

pub use events::{EventPrinter, Style, tokens};
pub use timeline::{conversation_line, render_timeline};
