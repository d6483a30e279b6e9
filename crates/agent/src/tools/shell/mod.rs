//! The shell tool `ExecuteCommand` (docs/design.md §8): a command policy check, optional
//! confirmation through the application's
//! [`CommandConfirmer`](smallebot_application::ports::CommandConfirmer) port, then
//! `/bin/sh -c` inside the workspace in its own process group, with a time limit, bounded
//! output and the whole group killed on timeout, cancellation or exit.

mod capture;
pub(super) mod process;
mod tool;

pub use tool::ExecuteCommand;
