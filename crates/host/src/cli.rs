//! Command-line definitions.

use std::path::PathBuf;

use clap::{Parser, Subcommand};

/// SmallEBot: a local, persistent LLM agent host.
///
/// Every conversation, turn, message, tool call and reasoning block is stored in SQLite
/// under the home directory (`smallebot.db`).
#[derive(Debug, Parser)]
#[command(name = "smallebot", version, about, long_about = None)]
pub struct Cli {
    /// Home directory holding agent.json, models.json, terminal.json, smallebot.db,
    /// tasks/ and workspace/.
    #[arg(
        long,
        global = true,
        env = "SMALLEBOT_HOME",
        default_value = "./.agents"
    )]
    pub home: PathBuf,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Apply pending database migrations (the other commands do this too, at start).
    Migrate {
        /// Only list applied and pending migrations; change nothing.
        #[arg(long)]
        status: bool,
    },
    /// List, show or delete stored conversations.
    #[command(subcommand)]
    Conversations(ConversationsCommand),
}

/// `smallebot conversations …`
#[derive(Debug, Subcommand)]
pub enum ConversationsCommand {
    /// List conversations, most recently active first.
    List {
        /// Only this user's conversations.
        #[arg(long)]
        user: Option<String>,
    },
    /// Show a conversation's timeline: messages, tool calls, reasoning, and which rows
    /// are already summarized by context compression.
    Show {
        /// The conversation id (as printed by `conversations list`).
        id: String,
    },
    /// Delete a conversation and everything stored for it.
    Delete {
        /// The conversation id.
        id: String,
    },
}
