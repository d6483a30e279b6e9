//! What every handler shares.

use std::sync::Arc;

use smallebot_application::ConversationService;

/// The service the routes drive, and whose conversations they show.
#[derive(Clone)]
pub struct WebState {
    pub(crate) service: Arc<ConversationService>,
    pub(crate) user_name: Arc<str>,
    pub(crate) stream_queue: usize,
}

impl WebState {
    /// Serves `user_name`'s conversations through `service`.
    pub fn new(service: Arc<ConversationService>, user_name: &str) -> Self {
        Self {
            service,
            user_name: Arc::from(user_name),
            stream_queue: crate::STREAM_QUEUE_EVENTS,
        }
    }

    /// How many undelivered events one event stream may have before it is told to
    /// reload (default [`STREAM_QUEUE_EVENTS`](crate::STREAM_QUEUE_EVENTS)).
    #[must_use]
    pub fn stream_queue(mut self, events: usize) -> Self {
        self.stream_queue = events.max(1);
        self
    }
}
