//! Configuration files in the home directory (`--home DIR` > `SMALLEBOT_HOME` >
//! `./.agents` when present > `~/.smallebot`, chosen by the host).
//!
//! - `agent.json` → [`AgentSettings`] (tool result length, compression, tool steps,
//!   permission rules, …); terminal.json's command keys mapped onto the rules by
//!   [`with_terminal_rules`].
//! - `hooks.json` → [`HooksConfig`] ([`load_hooks`]): the owner's hooks by event.
//! - `models.json` → [`ModelsConfig`], resolved with the environment into the chat and
//!   compaction [`Endpoint`]s by [`resolve_models`]; [`survey_models`] asks each
//!   model's server what it serves (`smallebot models`).
//!
//! A missing file means defaults. A file that exists but is invalid is a [`ConfigError`]
//! naming the file and, for parse errors, the line and column — never a silent
//! fallback. Keys match case-insensitively; an unknown key is an error with its position
//! and the nearest known key (a misspelt key must not silently mean its default).
//! Nothing here reads the process environment: lookups are passed in.

mod agent;
mod attachments;
mod budgets;
mod checkpoints;
mod command_env;
mod env_refs;
mod error;
pub(crate) mod file_names;
mod hooks;
mod json;
mod keys;
mod known_keys;
mod mcp;
mod mcp_auth;
mod models;
mod permissions;
mod resolve;
mod sandbox;
mod survey;
mod terminal;
mod tool_loading;

pub use agent::{AgentSettings, ReasoningEffort, ToolHistoryFormat};
pub use command_env::CommandEnvironment;
pub use error::ConfigError;
pub use file_names::AGENT_FILE;
pub use hooks::{
    DEFAULT_HOOK_TIMEOUT_SECONDS, HOOKS_FILE, HookCommand, HookEntry, HooksConfig, hooks_from_json,
    load_hooks,
};
pub use mcp::{
    DEFAULT_MAX_RESULT_MEGABYTES, DEFAULT_STARTUP_TIMEOUT_SECONDS, DEFAULT_TOOL_TIMEOUT_SECONDS,
    MCP_FILE, load_mcp_settings, mcp_settings_from_json,
};
pub use models::{MODELS_FILE, ModelSettings, ModelsConfig};
pub use permissions::{parse_permission_rule, with_terminal_rules};
pub use resolve::{
    DEFAULT_BASE_URL, DEFAULT_MODEL, ENV_MODEL_ID, ENV_OPENAI_API_KEY, ENV_OPENAI_BASE_URL,
    ENV_OPENAI_SUPPORTS_IMAGES, ENV_SMALLEBOT_MODEL, Endpoint, HOW_TO_CONFIGURE, ResolvedModels,
    resolve_models,
};
pub use smallebot_mcp::{McpServerSettings, McpSettings, McpTransport};
pub use survey::{SurveyedModel, survey_models};
pub use terminal::{TERMINAL_FILE, TerminalSettings, terminal_rules_text};
pub use tool_loading::McpToolLoading;
