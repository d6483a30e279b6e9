//! Agent definitions (sub-agents): `NAME.md` files in the home's `agents/` and, in
//! multi-user `serve`, a user's own `users/NAME/agents/` (shadowing shared ones of the
//! same name), parsed by core's rules ([`smallebot_core::agents`]); the built-in
//! `general` agent exists without a file. A broken file is kept with its problems and
//! gives one warning naming file, line and rule; the others load.

mod cache;
mod directory;
mod discovery;

pub use cache::FileCache;

pub use directory::HomeAgents;
pub use discovery::{
    AGENT_FILE_MAX_BYTES, AgentEntry, AgentFileCache, AgentFolders, AgentSet, AgentSource,
    read_agent_file, read_agent_folder,
};
