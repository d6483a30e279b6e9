//! # smallebot-terminal
//!
//! SmallEBot's terminal front end, a peer of `smallebot-web`: the interactive chat
//! (its REPL, line editor, prompts and slash commands), the rendering of live events,
//! stored timelines and transcripts as plain or styled text, and the files it reads
//! and writes for the person at the terminal (`--attach`/`@path`/`/attach`,
//! `/export`). The host wires the application and calls into it; it never reaches the
//! host.

// First: the output macros the other modules use.
#[macro_use]
pub mod stdio;

pub mod agents_text;
pub mod attach_files;
pub mod chat;
pub mod checkpoints;
pub mod command_args;
pub mod conversation_ref;
pub mod error;
pub mod export_file;
pub mod export_text;
pub mod mcp_commands;
pub mod mcp_status;
pub mod models_text;
pub mod permissions;
pub mod regular_file;
pub mod render;
pub mod rewind;
pub mod run_turn;
pub mod skills_text;
pub mod stop;
pub mod store_commands;
pub mod stored;
pub mod usage;
pub mod user_path;
pub mod users;

pub use error::TerminalError;
