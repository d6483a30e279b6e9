//! Agent definitions: Markdown files with YAML front matter in the format Claude Code's
//! sub-agents use (`name`, `description`, `tools`, `model`), plus SmallEBot's own
//! optional keys `sandbox` and `maxToolSteps`; the body is the agent's system prompt.
//! Pure rules only: the parse of one file's text into an [`AgentDefinition`] or the
//! problems that keep it out, each naming its line. Reading the folders is the agent
//! crate's.
//!
//! A definition only ever narrows what the agent that delegates has: its tools are
//! intersected with the parent's, its sandbox is never wider than the parent's.

mod definition;
mod parse;

pub use definition::{AgentDefinition, AgentModel, AgentSandbox, AgentTools};
pub use parse::{
    AGENT_DESCRIPTION_MAX_CHARS, AGENT_KNOWN_KEYS, AGENT_MAX_TOOL_STEPS, AGENT_PROMPT_MAX_CHARS,
    parse_agent,
};

/// The file extension of an agent definition (`<home>/agents/NAME.md`).
pub const AGENT_FILE_EXTENSION: &str = "md";

/// The agent that exists without a file: the parent's tools and model, a short prompt.
pub const GENERAL_AGENT: &str = "general";
