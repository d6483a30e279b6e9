//! `smallebot usage` and `smallebot permissions` on the home's store (arguments and
//! output in the terminal crate).

use smallebot_agent::assembly::Home;
use smallebot_terminal::store_commands::StoreCommand;

use crate::database::Database;
use crate::error::HostError;

/// Opens the store and runs `command` on it.
pub async fn run(home: &Home, command: StoreCommand) -> Result<(), HostError> {
    let store = Database::open(home).await?;
    let result = command.run(store.store().as_ref()).await;
    store.close().await;
    Ok(result?)
}
