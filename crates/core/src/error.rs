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
    /// A stored value could not be read back (corrupt row).
    #[error("stored data is invalid: {0}")]
    Corrupt(String),
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
