//! `smallebot checkpoints …` on the home's store (arguments and output in the terminal
//! crate, the prune in the checkpoints crate).

use smallebot_agent::assembly::{AgentAssembly, Home};
use smallebot_terminal::checkpoints::{CheckpointsCommand, run as checkpoints};

use crate::database::Database;
use crate::error::HostError;

/// Reads agent.json's retention (an invalid file is refused before the store is
/// opened), opens the store and runs `command`.
pub async fn run(home: &Home, command: CheckpointsCommand) -> Result<(), HostError> {
    let retention = AgentAssembly::from_home(home.root())?
        .checkpoint_settings()
        .retention;
    let store = Database::open(home).await?;
    let result = checkpoints(store.store().as_ref(), retention, command).await;
    store.close().await;
    Ok(result?)
}
