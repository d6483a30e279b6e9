//! Configuration files of the home directory (DESIGN.md §9): `agent.json` and
//! `models.json`, plus the environment quick start (`OPENAI_API_KEY`, `OPENAI_BASE_URL`,
//! `SMALLEBOT_MODEL`). A missing file means defaults; a file that exists but is invalid
//! is an error naming the file and the position — never a silent fallback.

mod agent;
mod error;
mod json;
mod models;

pub use agent::{AgentSettings, ToolHistoryFormat};
pub use error::ConfigError;
pub use models::{
    Endpoint, HOW_TO_CONFIGURE, ModelSettings, ModelsConfig, ResolvedModels, resolve_models,
};
