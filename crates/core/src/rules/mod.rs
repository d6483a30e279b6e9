//! Pure domain rules: functions without I/O, each with table-driven unit tests.
//!
//! The shell command policy lives with the shell parser in the `smallebot-shell` crate.

pub mod attachment;
pub mod attachment_link;
pub mod attachment_search;
pub mod attachment_text;
pub mod budget;
pub mod checkpoint;
pub mod child_env;
pub mod compression_scope;
pub mod cost;
pub mod elicitation;
pub mod export;
pub mod file_diff;
pub mod home_dir;
pub mod hook;
pub mod image_header;
#[cfg(test)]
mod image_samples;
pub mod json_kind;
pub mod lease;
pub mod mcp_mentions;
pub mod mentions;
pub mod message_versions;
pub mod output_bound;
pub mod pasted_path;
pub mod permission;
pub mod request_fit;
pub mod retention;
pub mod rewrite;
pub mod search_limits;
pub mod snippet;
pub mod summary_check;
pub mod usage_report;
/// Text made safe to print on a terminal (the leaf crate `smallebot-terminal-text`, which
/// the terminal renderer uses without the rest of core).
pub use smallebot_terminal_text as terminal_text;
pub mod title_text;
pub mod tool_search;
pub mod tool_summary;
pub mod truncation;
pub mod upload_quota;
pub mod uri_template;
pub mod workspace_path;
