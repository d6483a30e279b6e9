//! The commands that only read or change the store — `smallebot usage` and
//! `smallebot permissions` — as one, so the binary opens and closes the store for them
//! in one place.

use smallebot_core::repository::Store;

use crate::TerminalError;
use crate::permissions::{self, PermissionsCommand};
use crate::usage::{self, UsageArgs};

/// A command on the store alone.
#[derive(Debug, Clone)]
pub enum StoreCommand {
    /// `smallebot usage …`
    Usage(UsageArgs),
    /// `smallebot permissions …`
    Permissions(PermissionsCommand),
}

impl StoreCommand {
    /// Runs the command on `store`.
    ///
    /// # Errors
    /// As the command's own `run`.
    pub async fn run(&self, store: &dyn Store) -> Result<(), TerminalError> {
        match self {
            Self::Usage(args) => usage::run(store, args).await,
            Self::Permissions(command) => permissions::run(store, command).await,
        }
    }
}
