//! Sub-agents: the `Delegate` tool hands a self-contained task to an agent defined in
//! a file (or the built-in `general`), which runs it as a conversation of its own on the
//! same store, with the parent's tools narrowed by its definition, until it answers; the
//! answer is the tool's result. All `Delegate` calls of one model step run at once (the
//! pipeline runs a step's calls concurrently), at most `maxParallelAgents` at a time.
//! A sub-agent never gets `Delegate` itself (the depth limit is 1). The tool is
//! `crate::tools::Delegate`; this module runs what it asks for, and tells the parent's
//! event stream how each sub-agent is getting on (`SubAgentStarted`, `SubAgentToolCall`,
//! `SubAgentFinished`).

mod narrowed;
mod parts;
mod progress;
mod runner;
mod services;

pub use narrowed::NarrowedTools;
pub use parts::SubAgentParts;
pub use runner::{DelegatedTask, SubAgentRunner};
