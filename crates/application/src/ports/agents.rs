//! The agents port: the agent definitions a user sees, as the web app lists them.

use smallebot_protocol::api::AgentList;

/// The agent definitions each user sees: the built-in ones, the shared ones and, where
/// users sign in, their own (the agent crate reads them from the home's folders).
pub trait AgentDirectory: Send + Sync {
    /// Every agent `user` sees (their own only where users sign in), with the
    /// problems of the files that do not load. Reads files: call it off the async
    /// threads.
    fn list(&self, user: &str) -> AgentList;
}
