//! The host's error type and exit codes.

use std::process::ExitCode;

use smallebot_agent::assembly::AssemblyError;
use smallebot_agent::config::HOW_TO_CONFIGURE;
use smallebot_application::PipelineError;
use smallebot_application::pipeline::CompressionSkipped;
use smallebot_core::RepositoryError;
use smallebot_core::entities::TurnStatus;
use smallebot_core::ids::{ConversationId, InvalidId};
use smallebot_core::rules::attachment::AttachmentRefusal;
use smallebot_core::rules::search_limits::InvalidDays;
use smallebot_core::rules::terminal_text::escape_line;

use smallebot_infrastructure::StoreError;
use smallebot_terminal::user_path::shown;

/// The exit code when the conversation already has a running turn (here or in
/// another process).
pub const BUSY_EXIT_CODE: u8 = 3;

/// The exit code of `run` when a budget (agent.json `budgets`) stopped the turn before
/// a model request that could have passed it.
pub const BUDGET_EXIT_CODE: u8 = 4;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// Opening or migrating the database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Connecting to or migrating a PostgreSQL database failed.
    #[error(transparent)]
    Postgres(#[from] smallebot_postgres::PgStoreError),
    /// The `--database` value names no store this build serves.
    #[error("--database / SMALLEBOT_DATABASE_URL: {0}")]
    DatabaseLocation(#[from] smallebot_infrastructure::LocationError),
    /// Reading or writing stored data failed.
    #[error(transparent)]
    Repository(#[from] RepositoryError),
    /// An id argument is malformed.
    #[error(transparent)]
    InvalidId(#[from] InvalidId),
    /// `--days` is out of range.
    #[error("--{0}")]
    InvalidDays(#[from] InvalidDays),
    /// The configuration could not be turned into an agent (invalid file, unknown
    /// tokenizer, a blacklist rule that does not parse).
    #[error(transparent)]
    Assembly(AssemblyError),
    /// The pipeline refused the request.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// No model endpoint is configured.
    #[error("{HOW_TO_CONFIGURE}")]
    NoEndpoint,
    /// The turn ended without completing (failed or cancelled).
    #[error("the turn ended {} (conversation {conversation_id})", .status.as_str())]
    TurnNotCompleted {
        /// The conversation.
        conversation_id: ConversationId,
        /// How the turn ended.
        status: TurnStatus,
        /// A budget stopped it (exit code [`BUDGET_EXIT_CODE`]).
        budget_stop: bool,
        /// Whether the end was already printed with the turn's events (then `main`
        /// prints it no second time).
        reported: bool,
    },
    /// `compact` changed nothing.
    #[error("nothing changed: {0}")]
    NothingCompacted(String),
    /// `serve` was asked to listen beyond loopback without users.
    #[error(
        "refusing to listen on {0}: beyond loopback (127.0.0.1 or ::1) every request must \
         carry a user's token, and there are no users. Add one with `smallebot users add NAME`."
    )]
    NotLoopback(std::net::SocketAddr),
    /// A `--public-name` is no host, host:port or origin.
    #[error(transparent)]
    PublicName(#[from] smallebot_web::PublicNameError),

    /// A configuration file (mcp.json, models.json) is invalid.
    #[error(transparent)]
    McpConfig(#[from] smallebot_agent::config::ConfigError),
    /// The MCP tools clash.
    #[error(transparent)]
    Mcp(#[from] smallebot_mcp::McpStartError),

    /// `serve` for several users where the sandbox cannot be enforced.
    #[error(
        "refusing to serve several users without a working sandbox ({0}). Their commands \
         could read each other's files and the database. Run on a kernel with Landlock, or \
         set \"sandbox\": \"off\" in terminal.json to accept that explicitly."
    )]
    SandboxUnavailable(String),

    /// `users remove` named nobody.
    #[error("there is no user named '{}' (`smallebot users list` shows them)", escape_line(.0))]
    UnknownUser(String),

    /// `users add` got a name it cannot use.
    #[error(
        "'{}' cannot be a user name: use 1 to 64 letters, digits, '-', '_' or '.' (not first)",
        escape_line(.0)
    )]
    InvalidUserName(String),

    /// `serve` could not bind its address.
    #[error(
        "cannot listen on {addr}: {source}. Is another server using it? Pick another with --addr."
    )]
    Listen {
        /// The address.
        addr: std::net::SocketAddr,
        /// Why.
        source: std::io::Error,
    },

    /// `conversations export --output FILE`: the file exists and --force was not given.
    #[error(
        "{} exists already and was left as it is: give another file name, or pass \
         --force to replace it",
        shown(.0)
    )]
    ExportExists(std::path::PathBuf),
    /// The terminal front end failed (a conversation not found, a file to attach or
    /// export, the chat's own input and output).
    #[error(transparent)]
    Terminal(#[from] smallebot_terminal::TerminalError),
    /// Reading or writing standard input, output or error, or another file, failed.
    #[error("input/output failed: {0}")]
    Io(#[from] std::io::Error),
}

impl From<AssemblyError> for HostError {
    fn from(error: AssemblyError) -> Self {
        match error {
            AssemblyError::NoEndpoint => Self::NoEndpoint,
            other => Self::Assembly(other),
        }
    }
}

impl From<AttachmentRefusal> for HostError {
    fn from(refusal: AttachmentRefusal) -> Self {
        Self::Pipeline(refusal.into())
    }
}

impl From<CompressionSkipped> for HostError {
    fn from(skipped: CompressionSkipped) -> Self {
        Self::NothingCompacted(skipped.to_string())
    }
}

impl HostError {
    /// Whether this error was already shown to the person (printed with the events of
    /// the turn it ends), so that `main` only sets the exit code.
    pub fn is_reported(&self) -> bool {
        matches!(self, Self::TurnNotCompleted { reported: true, .. })
    }

    /// The process exit code for this error.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::NoEndpoint => ExitCode::from(2),
            Self::Pipeline(PipelineError::Busy(_) | PipelineError::TurnRunning { .. }) => {
                ExitCode::from(BUSY_EXIT_CODE)
            }
            Self::Terminal(error) if error.is_busy() => ExitCode::from(BUSY_EXIT_CODE),
            Self::TurnNotCompleted {
                budget_stop: true, ..
            } => ExitCode::from(BUDGET_EXIT_CODE),
            _ => ExitCode::FAILURE,
        }
    }
}
