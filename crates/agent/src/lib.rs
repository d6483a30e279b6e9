//! # smallebot-agent
//!
//! The model side of SmallEBot: configuration files, the tokenizer, the history builder
//! that turns stored rows into an OpenAI chat request, the compression summarizer, the
//! task-list plan service and the built-in tools. [`assembly::AgentAssembly`] wires them,
//! with the model client of `smallebot-model-client`, into a
//! `smallebot_application::ConversationService` in one call.

pub mod agents;
pub mod assembly;
pub mod config;
pub mod history;
pub mod processes;
pub mod skills;
pub mod subagents;
pub mod summarizer;
pub mod tasks_plan;
pub mod tokenizer;
pub mod tools;

/// The sandbox launcher `ExecuteCommand` and stdio MCP servers run in
/// (`smallebot-sandbox`), re-exported so embedders that only depend on this crate can
/// name [`sandbox::CommandSandbox`] and call [`sandbox::run_helper_if_requested`].
pub use smallebot_sandbox as sandbox;

/// The model client (`smallebot-model-client`) whose endpoint and settings the
/// assembly takes, re-exported so embedders that only depend on this crate can name
/// [`model_client::ChatEndpoint`].
pub use smallebot_model_client as model_client;
