//! The host's error type and exit codes.

use std::process::ExitCode;

use smallebot_agent::config::{ConfigError, HOW_TO_CONFIGURE};
use smallebot_agent::tokenizer::TokenizerError;
use smallebot_application::PipelineError;
use smallebot_core::RepositoryError;
use smallebot_core::ids::InvalidId;
use smallebot_infrastructure::StoreError;

/// Why a command failed.
#[derive(Debug, thiserror::Error)]
pub enum HostError {
    /// Opening or migrating the database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Reading or writing stored data failed.
    #[error(transparent)]
    Repository(#[from] RepositoryError),
    /// An id argument is malformed.
    #[error(transparent)]
    InvalidId(#[from] InvalidId),
    /// The named thing does not exist.
    #[error("{0}")]
    NotFound(String),
    /// A command-line argument is out of range; the message says what is accepted.
    #[error("{0}")]
    InvalidArgument(String),
    /// A configuration file is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// The tokenizer named in models.json is unknown.
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    /// The pipeline refused the request.
    #[error(transparent)]
    Pipeline(#[from] PipelineError),
    /// No model endpoint is configured.
    #[error("{HOW_TO_CONFIGURE}")]
    NoEndpoint,
    /// The turn did not complete (failed or cancelled); already reported.
    #[error("{0}")]
    TurnNotCompleted(String),
    /// Reading input or writing output failed.
    #[error("terminal I/O failed: {0}")]
    Io(#[from] std::io::Error),
}

impl HostError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> ExitCode {
        match self {
            Self::NoEndpoint => ExitCode::from(2),
            _ => ExitCode::FAILURE,
        }
    }
}
