//! The arguments of `smallebot skills …`, `mcp …` and `conversations …` (the binary
//! parses them and runs them with this crate's output; like the other commands'
//! arguments here, they live beside what prints their answers).

use std::path::PathBuf;

use clap::Subcommand;

use crate::export_text::ExportFormat;

/// `smallebot skills …`
#[derive(Debug, Subcommand)]
pub enum SkillsCommand {
    /// Every skill folder: name, source (system, shared, user), description, and the
    /// problems of folders that break the format (file, line, rule).
    List {
        /// Also this web user's own skills (`<home>/users/NAME/skills/`), which shadow
        /// shared ones of the same name.
        #[arg(long)]
        user: Option<String>,
    },
    /// One skill in full: folder, fields, allowed-tools, files and instructions.
    Show {
        /// The skill's name.
        name: String,
        /// Look in this web user's own skills too.
        #[arg(long)]
        user: Option<String>,
    },
    /// Validate one skill folder against the format (SKILL.md front matter: name equal
    /// to the folder, description, optional license, compatibility, metadata,
    /// allowed-tools). Prints each problem as FILE:LINE: rule; exits 1 when the folder
    /// would not load.
    Check {
        /// The skill's folder (the one holding SKILL.md).
        dir: PathBuf,
    },
}

/// `smallebot mcp …`
#[derive(Debug, Subcommand)]
pub enum McpCommand {
    /// Each server: whether it started, how many tools, the last error.
    List,
    /// The tools as the model sees them (`{server}__{tool}`), of one server or all.
    Tools {
        /// Only this server's tools.
        server: Option<String>,
    },
    /// Sign in to a server configured with `"auth": {"type": "oauth"}`: prints the
    /// authorization URL (and opens a browser where `xdg-open` exists), waits for the
    /// redirect on 127.0.0.1, stores the sign-in encrypted (SMALLEBOT_MCP_TOKEN_KEY).
    Login {
        /// The server's name in mcp.json.
        server: String,
        /// Only print the URL; open no browser.
        #[arg(long)]
        no_browser: bool,
    },
    /// Forget the stored sign-in to a server.
    Logout {
        /// The server's name in mcp.json.
        server: String,
    },
}

/// `smallebot conversations …`
#[derive(Debug, Subcommand)]
pub enum ConversationsCommand {
    /// List conversations, most recently active first.
    List {
        /// Only this user's conversations.
        #[arg(long)]
        user: Option<String>,
        /// Also the conversations sub-agents ran in (hidden otherwise).
        #[arg(long)]
        all: bool,
    },
    /// Show a conversation's timeline: messages, tool calls, reasoning, and which rows
    /// are already summarized by context compression.
    Show {
        /// The conversation (its id as `conversations list` prints it, or the start of it).
        id: String,
    },
    /// Write a conversation whole as Markdown (to read or share) or JSON (the
    /// structured conversation, as the web API's export), to standard output or a
    /// file.
    Export {
        /// The conversation (its id, or the start of it).
        id: String,
        /// `md` or `json`.
        #[arg(long, value_enum, default_value_t = ExportFormat::Md)]
        format: ExportFormat,
        /// Write to this file instead of standard output; an existing file is left as
        /// it is (the export refused) unless --force.
        #[arg(long, value_name = "FILE")]
        output: Option<std::path::PathBuf>,
        /// Replace the --output file when it exists (written whole beside it first,
        /// then renamed over it).
        #[arg(long, requires = "output")]
        force: bool,
    },
    /// Delete a conversation and everything stored for it.
    Delete {
        /// The conversation (its id, or the start of it).
        id: String,
    },
    /// Full-text search over stored messages, tool calls and tool results, newest first,
    /// each match with one row before and after (times in UTC). Searches every user's
    /// conversations unless --user is given (this command is for the machine's owner).
    Search {
        /// The words to find (all must occur; punctuation is matched literally).
        #[arg(required = true, num_args = 1..)]
        query: Vec<String>,
        /// Only this user's conversations.
        #[arg(long)]
        user: Option<String>,
        /// Only rows from the last N days (1–36500).
        #[arg(long)]
        days: Option<u64>,
        /// Most matches to show (default 10, clamped to 1–50).
        #[arg(long)]
        limit: Option<u64>,
    },
}

/// A `--shutdown-grace`: a number of seconds, 0 or more (at most a day).
///
/// # Errors
/// Says what is expected.
pub fn grace_seconds(text: &str) -> Result<f64, String> {
    match text.trim().parse::<f64>() {
        Ok(seconds) if (0.0..=86_400.0).contains(&seconds) => Ok(seconds),
        _ => Err(format!(
            "'{text}' is not a number of seconds from 0 to 86400 (such as 10 or 2.5)"
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_shutdown_grace_is_a_number_of_seconds() {
        assert_eq!(grace_seconds("10"), Ok(10.0));
        assert_eq!(grace_seconds("0"), Ok(0.0));
        assert_eq!(grace_seconds(" 2.5 "), Ok(2.5));
        for bad in ["-1", "ten", "", "1e9", "NaN"] {
            assert!(grace_seconds(bad).is_err(), "{bad}");
        }
    }
}
