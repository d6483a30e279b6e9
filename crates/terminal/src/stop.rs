//! Where requests to stop a command come from: the process's stop signals, which the
//! binary catches (`SIGTERM`, `SIGHUP`, and `SIGINT` for `run`).

use async_trait::async_trait;

/// Where requests to stop come from (the process's stop signals).
#[async_trait]
pub trait StopRequests: Send {
    /// Waits for the next request to stop; returns its name (`SIGTERM`), which is
    /// printed with what it does.
    async fn next(&mut self) -> String;
}
