//! Plain-text rendering of stored conversations and live events for the terminal.
//! Everything that came from outside (the model, tools, stored rows) is printed through
//! `escape_controls`, so it cannot move the cursor, clear the screen or retitle the
//! window.

mod event_lines;
mod events;
pub mod file_changes;
pub mod hook_runs;
mod markdown;
mod plain_wrap;
mod run_output;
mod style;
mod sub_agent_board;
pub mod sub_agents;
mod timeline;
pub mod tool_lines;
mod transcript;

pub use event_lines::{cut_mark, tokens};
pub use events::EventPrinter;
pub use markdown::Resizes;
pub use run_output::RunOutput;
pub use style::Style;
pub use timeline::{conversation_line, render_timeline};
pub use transcript::{RESUMED_TURNS, recent_transcript};
