//! The host's error type and exit codes.

use std::process::ExitCode;

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
}

impl HostError {
    /// The process exit code for this error.
    pub fn exit_code(&self) -> ExitCode {
        ExitCode::FAILURE
    }
}
