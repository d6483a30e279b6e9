//! Why an agent could not be assembled.

use std::path::PathBuf;

use smallebot_shell::PolicyError;

use crate::config::{ConfigError, HOW_TO_CONFIGURE};
use crate::tokenizer::TokenizerError;

/// Why [`AgentAssembly::build`](super::AgentAssembly::build) or
/// [`AgentAssembly::from_home`](super::AgentAssembly::from_home) failed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum AssemblyError {
    /// A configuration file of the home directory is invalid.
    #[error(transparent)]
    Config(#[from] ConfigError),
    /// A `commandBlacklist` rule of terminal.json does not parse.
    #[error("{file}: commandBlacklist: {source}; fix or remove the rule")]
    BlacklistRule {
        /// The terminal.json file.
        file: PathBuf,
        /// What is wrong with the rule.
        #[source]
        source: PolicyError,
    },
    /// The sandbox terminal.json asks for cannot be had on this machine.
    #[error("{file}: {source}")]
    Sandbox {
        /// The terminal.json file.
        file: PathBuf,
        /// What the kernel lacks.
        #[source]
        source: smallebot_sandbox::SandboxError,
    },
    /// The tokenizer named in models.json is unknown.
    #[error(transparent)]
    Tokenizer(#[from] TokenizerError),
    /// No model endpoint is configured (no models.json, no `OPENAI_*` variables, and no
    /// endpoint given to the builder).
    #[error("{HOW_TO_CONFIGURE}")]
    NoEndpoint,
    /// The assembly was given no store.
    #[error("no store was given to the agent assembly: call AgentAssembly::store first")]
    NoStore,
}
