//! Tools the model may call: the [`Tool`] trait, the [`ToolRegistry`] that implements the
//! application's `ToolExecutor`, argument helpers, and the built-in tools.

mod args;
mod history;
mod registry;
mod shell;
mod tasks;
mod time;
mod workspace;

pub use args::{ArgError, Args};
pub use history::*;
pub use registry::{Tool, ToolRegistry};
pub use shell::*;
pub use tasks::*;
pub use time::GetCurrentTime;
pub use workspace::*;
