//! Command-line definitions.

use std::path::PathBuf;

use clap::{Parser, Subcommand};
pub use smallebot_terminal::command_args::{ConversationsCommand, McpCommand, SkillsCommand};
pub use smallebot_terminal::users::UsersCommand;

/// How log events are written (`--log-format`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One readable line per event.
    Text,
    /// One JSON object per line, with the fields of the spans it happened in.
    Json,
}

/// The environment variables and exit codes, shown after the options in `--help`.
const AFTER_HELP: &str = "\
Environment:
  SMALLEBOT_HOME    the home directory (same as --home; default the nearest .agents
                    directory here or in a parent, up to the repository root, else
                    ~/.smallebot)
  SMALLEBOT_DATABASE_URL
                    the database (same as --database): a postgres:// URL shared by
                    several `serve` processes, or a SQLite file path
  SMALLEBOT_MODEL   the chat model: an id of models.json, or without models.json the
                    model name sent to OPENAI_BASE_URL (default gpt-4o-mini)
  OPENAI_API_KEY    the API key when there is no models.json (models.json names its
                    own key variables with apiKeyEnv)
  OPENAI_BASE_URL   the endpoint when there is no models.json (default
                    https://api.openai.com/v1; include http:// or https://)
  USER              the conversation owner when neither --user nor agent.json's
                    userName is set
  NO_COLOR          set to anything non-empty: no colours
  RUST_LOG          which logs go to standard error when --log-level is not given
  SMALLEBOT_METRICS_TOKEN
                    serve: the bearer token GET /metrics asks of scrapers beyond
                    loopback (without it, metrics are served to loopback only)
  OTEL_EXPORTER_OTLP_ENDPOINT
                    a collector's OTLP/HTTP address: spans of turns, model requests
                    and tool calls are exported there (the other OTEL_* variables apply)
Exit codes: 0 done; 1 error; 2 no model endpoint configured; 3 the conversation is busy
(a turn is running, here or in another process).";

/// SmallEBot: a local, persistent LLM agent host.
///
/// Every conversation, turn, message, tool call and reasoning block is stored in SQLite
/// under the home directory (`smallebot.db`), or in PostgreSQL with `--database`.
#[derive(Debug, Parser)]
#[command(
    name = "smallebot",
    version,
    about,
    long_about = None,
    after_help = AFTER_HELP
)]
pub struct Cli {
    /// Home directory holding agent.json, models.json, terminal.json, smallebot.db,
    /// tasks/ and workspace/ [default: the nearest .agents directory in the current
    /// directory or a parent, up to the repository root, else ~/.smallebot]
    #[arg(long, global = true, env = "SMALLEBOT_HOME")]
    pub home: Option<PathBuf>,

    /// The database instead of the home's smallebot.db: a PostgreSQL URL
    /// (`postgres://user[:password]@host[:port]/database`), which several `serve`
    /// processes may share, or the path of a SQLite file
    #[arg(
        long,
        global = true,
        env = "SMALLEBOT_DATABASE_URL",
        value_name = "URL"
    )]
    pub database: Option<String>,

    /// How the logs on standard error look: `text` (one readable line per event) or
    /// `json` (one JSON object per line, with its spans' fields: request and turn ids)
    #[arg(long, global = true, value_enum, default_value_t = LogFormat::Text)]
    pub log_format: LogFormat,

    /// Which logs: a level (error, warn, info, debug, trace) or RUST_LOG's directives
    /// (`smallebot_web=debug,info`) [default: RUST_LOG if set, else info for serve and
    /// warn for the other commands]
    #[arg(long, global = true, value_name = "FILTER")]
    pub log_level: Option<String>,

    /// Let logs carry content: the user's messages and the model's answers (left out
    /// unless given)
    #[arg(long, global = true)]
    pub log_content: bool,

    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// Top-level commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Chat interactively: streaming answers, tool calls as they run, slash commands
    /// (/help). Continues your most recent conversation unless told otherwise.
    Chat {
        /// Continue this conversation (its id, or the start of it).
        #[arg(long, conflicts_with = "new")]
        conversation: Option<String>,
        /// Start a new conversation.
        #[arg(long)]
        new: bool,
        /// Choose the conversation from a list of recent ones (title, date, turns;
        /// type to filter, Enter opens, Esc starts a new one).
        #[arg(long, conflicts_with_all = ["conversation", "new"])]
        resume: bool,
        /// Whose conversations (default: agent.json userName, else $USER).
        #[arg(long)]
        user: Option<String>,
    },
    /// Send one message, print the answer (or every event as JSON lines) and exit.
    /// The answer goes to standard output; tool calls, reasoning and the usage line go
    /// to standard error. Exit code 0 when the turn completed, 1 when it failed, 2 when
    /// no model is configured. SIGTERM, SIGHUP or Ctrl+C cancel the turn (its partial
    /// answer stored, a running command killed) and exit 1 once it is stored.
    Run {
        /// The message to send; `-` reads it from standard input.
        prompt: String,
        /// Continue this conversation (its id, or the start of it) instead of starting
        /// a new one.
        #[arg(long)]
        conversation: Option<String>,
        /// Print every event as one JSON object per line.
        #[arg(long)]
        json: bool,
        /// Whose conversation (default: agent.json userName, else $USER).
        #[arg(long)]
        user: Option<String>,
        /// Send this file with the message (repeatable): an image to a model that sees
        /// images, a text file inlined, any other file saved in the workspace.
        #[arg(long = "attach", value_name = "FILE")]
        attach: Vec<std::path::PathBuf>,
    },
    /// Apply pending database migrations (the other commands do this too, at start).
    Migrate {
        /// Only list applied and pending migrations; change nothing.
        #[arg(long)]
        status: bool,
    },
    /// Write a consistent copy of this home to a new folder while it runs (`serve` may
    /// keep writing): the SQLite database, attachment contents, task lists,
    /// configuration, skills and agents — not the workspaces. With PostgreSQL, the
    /// home's files outside the database (back the database up with pg_dump).
    Backup {
        /// The folder to write; it must not exist yet (a backup never overwrites).
        dest: std::path::PathBuf,
    },
    /// Bring a home back from a folder written by `backup`, after checking it (SQLite's
    /// integrity check, its schema version, every attachment's content). Stop `serve`
    /// and chats of this home first.
    Restore {
        /// The backup folder.
        src: std::path::PathBuf,
        /// Restore into a home that already holds a database, task lists or
        /// configuration; what was there is moved to `before-restore-<time>/` in the
        /// home, never deleted.
        #[arg(long)]
        force: bool,
    },
    /// Summarize a conversation's older turns now (the recent turns stay verbatim;
    /// nothing is deleted).
    Compact {
        /// The conversation (its id, or the start of it).
        id: String,
        /// What the summary should focus on.
        #[arg(long)]
        focus: Option<String>,
    },
    /// Serve the web app (page, HTTP API, live events) until Ctrl+C, SIGTERM or SIGHUP.
    ///
    /// The API is described in docs/http-api.md. On loopback nobody signs in and every
    /// conversation is --user's. Any other address needs users (`smallebot users add
    /// NAME`): every request then carries a user's token and sees only that user's
    /// conversations. Commands that need confirmation are asked on the page.
    Serve {
        /// Where to listen.
        #[arg(long, default_value = "127.0.0.1:8080")]
        addr: std::net::SocketAddr,
        /// A name the server is reached by, as the browser's address bar shows it: a
        /// host (`bot.lan`), a host:port or an origin (`https://bot.example.com`, for a
        /// reverse proxy; https also makes the sign-in cookie Secure); repeatable.
        /// Requests naming other hosts are refused.
        #[arg(long = "public-name")]
        public_names: Vec<String>,
        /// Open the page in a browser once listening ($BROWSER if set, else xdg-open).
        #[arg(long)]
        open: bool,
        /// On SIGTERM, SIGHUP or Ctrl+C: new turns are refused at once, and running
        /// turns get this many seconds to finish before they are cancelled (their
        /// partial answers kept, their unfinished tool calls marked interrupted). A
        /// second signal cancels them at once.
        #[arg(long, value_name = "SECONDS", default_value_t = 10.0, value_parser = smallebot_terminal::command_args::grace_seconds)]
        shutdown_grace: f64,
        /// Whose conversations on loopback (default: agent.json userName, else $USER).
        #[arg(long)]
        user: Option<String>,
        /// Label /metrics' token and cost counters by user too (a series per user and
        /// model: mind the number of users).
        #[arg(long)]
        metrics_per_user: bool,
    },
    /// Users of the web app when it listens beyond loopback.
    #[command(subcommand)]
    Users(UsersCommand),
    /// List, show, search, export or delete stored conversations.
    #[command(subcommand)]
    Conversations(ConversationsCommand),
    /// Rewind a conversation: its files back to before a turn, its turns undone, or both.
    Rewind(smallebot_terminal::rewind::RewindArgs),
    /// Checkpoint contents: `prune [--dry-run]` removes what agent.json's retention
    /// does not keep (also done when chat, run, serve or compact starts).
    #[command(subcommand)]
    Checkpoints(smallebot_terminal::checkpoints::CheckpointsCommand),
    /// What the model requests cost: every recorded request (turns, sub-agents, titles,
    /// summaries) summed by model (default), day, user or conversation, with tokens
    /// (prompt, cached, completion, reasoning) and cost at models.json's prices.
    Usage(smallebot_terminal::usage::UsageArgs),
    /// Grants given when asked ("always"): `list [--user U] [--all] [--json]`, `revoke ID`.
    #[command(subcommand)]
    Permissions(smallebot_terminal::permissions::PermissionsCommand),
    /// The models of models.json (or the one the environment names): what
    /// models.json says about each (contextWindow, maxOutputTokens, parallelRequests)
    /// and what its server reports — llama.cpp's /props (context per slot, slots),
    /// vLLM's /v1/models (max_model_len), Ollama's /api/show (num_ctx) — with a warning
    /// when contextWindow is larger than what the server gives a request. `*` marks the
    /// default model.
    Models,
    /// The MCP servers of mcp.json: their state and tools (each is started to ask).
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Skills: folders with a SKILL.md (name, description, instructions) in
    /// `<home>/skills/` that the model loads when a task matches; see docs/configuration.md.
    #[command(subcommand)]
    Skills(SkillsCommand),
    /// Agent definitions (sub-agents): `<home>/agents/NAME.md`; see docs/configuration.md.
    #[command(subcommand)]
    Agents(crate::commands::agents::AgentsCommand),
}
