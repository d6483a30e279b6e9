//! The error every repository trait returns.

/// What can go wrong when reading or writing stored conversations.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum RepositoryError {
    /// The named entity does not exist.
    #[error("{entity} {id} not found")]
    NotFound {
        /// Which kind of entity ("conversation", "turn", ...).
        entity: &'static str,
        /// The id that was looked up.
        id: String,
    },
    /// The request contradicts what is stored (for example a compression boundary
    /// that goes backwards); nothing was changed.
    #[error("rejected: {0}")]
    Conflict(String),
    /// The storage backend failed; the message says what it was doing.
    #[error("storage error while {action}: {message}")]
    Storage {
        /// What the repository was doing.
        action: &'static str,
        /// The backend's message.
        message: String,
    },
    /// A turn of the conversation is running (in this or another process); nothing
    /// was changed.
    #[error("turn {} of conversation {} is running ({})", .0.id, .0.conversation_id, lease_text(.0))]
    TurnRunning(Box<crate::entities::Turn>),
    /// Storing it would go over an upload quota (agent.json `attachments`); nothing
    /// was stored.
    #[error("{0}; nothing was stored")]
    OverQuota(crate::rules::upload_quota::QuotaRefusal),
    /// A stored value could not be read back (corrupt row).
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
    /// The database cannot be reached (down, restarting, out of connections); nothing
    /// was changed and the request may be tried again once it answers.
    #[error(
        "the database cannot be reached while {action}: {message}. Check that it runs and \
         accepts connections; requests work again once it answers"
    )]
    Unavailable {
        /// What the repository was doing.
        action: &'static str,
        /// The backend's message.
        message: String,
    },
}

fn lease_text(turn: &crate::entities::Turn) -> String {
    turn.lease
        .as_ref()
        .map_or_else(|| "owner unknown".to_owned(), |l| l.owner.to_string())
}

impl RepositoryError {
    /// Builds a [`RepositoryError::NotFound`].
    pub fn not_found(entity: &'static str, id: impl ToString) -> Self {
        Self::NotFound {
            entity,
            id: id.to_string(),
        }
    }
}
