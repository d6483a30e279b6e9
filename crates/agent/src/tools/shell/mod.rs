//! The shell tool `ExecuteCommand` (docs/design.md §8): a command policy check, optional
//! confirmation through the [`CommandConfirmer`] port, then `/bin/sh -c` inside the
//! workspace in its own process group, with a time limit, bounded output and the whole
//! group killed on timeout, cancellation or exit.

mod capture;
mod confirm;
mod process;
mod tool;

pub use confirm::{CommandConfirmer, ConfirmationRequest, DenyAll};
pub use tool::ExecuteCommand;
