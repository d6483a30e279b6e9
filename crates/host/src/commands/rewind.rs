//! `smallebot rewind` on the home's workspace (the rewind is in the checkpoints crate,
//! its arguments and output in the terminal crate).

use smallebot_agent::assembly::Home;
use smallebot_terminal::rewind::{RewindArgs, rewind};

use crate::error::HostError;
use crate::wiring;

/// Opens the store (turns a stopped process left running marked interrupted first)
/// and rewinds.
pub async fn run(home: &Home, args: RewindArgs) -> Result<(), HostError> {
    let app = wiring::build_without_model(home).await?;
    let result = match wiring::recover(&app).await {
        Ok(()) => {
            let web_users = app.store.user_names().await?;
            Ok(rewind(app.store.store(), &home.workspace_dir(), &web_users, args).await?)
        }
        Err(error) => Err(error),
    };
    app.close().await;
    result
}
