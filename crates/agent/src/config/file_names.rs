//! Names of the home's configuration files that other modules name in messages.

/// The name of the agent settings file inside the home directory.
pub const AGENT_FILE: &str = "agent.json";
