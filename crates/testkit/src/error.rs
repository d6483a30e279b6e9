//! The crate's error type.

use std::time::Duration;

/// What can go wrong when starting or waiting on a [`crate::TestModel`].
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum TestkitError {
    /// The listener could not be bound on 127.0.0.1.
    #[error("smallebot-testkit: could not bind a listener on 127.0.0.1:0: {0}")]
    Bind(#[source] std::io::Error),
    /// The thread or runtime of a server started apart could not be started.
    #[error("smallebot-testkit: could not start the model server's own thread: {0}")]
    Thread(String),
    /// A throwaway PostgreSQL cluster could not be set up.
    #[error("smallebot-testkit: PostgreSQL test cluster: {0}")]
    Postgres(String),
    /// Headless Chromium could not be started or driven.
    #[error("smallebot-testkit: Chromium: {0}")]
    Browser(String),
    /// Fewer requests than expected arrived before the timeout.
    #[error(
        "smallebot-testkit: waited {timeout:?} for {expected} request(s) but only {arrived} \
         arrived; check that the client uses base_url() and that it was not stopped by an \
         earlier error"
    )]
    Timeout {
        /// How many requests were awaited.
        expected: usize,
        /// How many had arrived when the wait gave up.
        arrived: usize,
        /// How long the wait lasted.
        timeout: Duration,
    },
}
