//! `smallebot mcp …` (run by the terminal crate): `list` and `tools` on the servers of
//! mcp.json started as a conversation would start them; `login` and `logout` of the
//! home owner on the store.

use smallebot_agent::assembly::Home;
use smallebot_agent::config::{AgentSettings, MCP_FILE, load_mcp_settings};
use smallebot_mcp::McpSignIns;
use smallebot_terminal::mcp_commands::{SignInCommand, print_status, print_tools};
use smallebot_terminal::mcp_status::pin_warnings;

use crate::cli::McpCommand;
use crate::database::Database;
use crate::error::HostError;
use crate::wiring;

/// Runs one `mcp` subcommand.
pub async fn run(home: &Home, command: McpCommand) -> Result<(), HostError> {
    let owner = wiring::user_name(None, AgentSettings::load(home.root())?.user_name.as_deref());
    let store = Database::open(home).await?;
    let env = |key: &str| std::env::var(key).ok();
    let sign_ins = McpSignIns::from_env(store.store(), &owner, &env);
    let result = if let Some(signing) = SignInCommand::of(&command) {
        let settings = load_mcp_settings(home.root(), &env);
        match settings {
            Ok(settings) => signing.run(&settings, &sign_ins).await.map_err(Into::into),
            Err(error) => Err(error.into()),
        }
    } else {
        list(home, &sign_ins, command).await
    };
    store.close().await;
    result
}

/// `list` and `tools`, on the servers started for them.
async fn list(home: &Home, sign_ins: &McpSignIns, command: McpCommand) -> Result<(), HostError> {
    let servers = wiring::start_mcp(home, Some(sign_ins)).await?;
    let pins = pin_warnings(home.root(), &servers);
    for warning in servers.warnings().iter().chain(&pins) {
        errln!("warning: {warning}");
    }
    let listed = match command {
        McpCommand::Tools { server } => print_tools(&servers, server.as_deref()).await,
        _ => print_status(&servers, &home.root().join(MCP_FILE)).await,
    };
    servers.shutdown().await;
    Ok(listed?)
}
