//! `smallebot usage` on the home's store (arguments and output in the terminal crate).

use smallebot_agent::assembly::Home;
use smallebot_terminal::usage::{UsageArgs, run as usage};

use crate::database::Database;
use crate::error::HostError;

/// Opens the store and prints the usage `args` select.
pub async fn run(home: &Home, args: &UsageArgs) -> Result<(), HostError> {
    let store = Database::open(home).await?;
    let result = usage(store.store().as_ref(), args).await;
    store.close().await;
    Ok(result?)
}
