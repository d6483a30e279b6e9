//! What every handler shares.

use std::sync::Arc;

use smallebot_application::ConversationService;

/// The service the routes drive, and whose conversations they show.
#[derive(Clone)]
pub struct WebState {
    pub(crate) service: Arc<ConversationService>,
    pub(crate) user_name: Arc<str>,
}

impl WebState {
    /// Serves `user_name`'s conversations through `service`.
    pub fn new(service: Arc<ConversationService>, user_name: &str) -> Self {
        Self {
            service,
            user_name: Arc::from(user_name),
        }
    }
}
