//! Small helpers shared by the repository implementations.

use smallebot_core::RepositoryError;
use smallebot_core::time::Timestamp;

/// Maps an sqlx error to a repository error that says what was being done: the
/// server out of reach ([`unreachable`]) is [`RepositoryError::Unavailable`].
pub(crate) fn storage(action: &'static str) -> impl FnOnce(sqlx::Error) -> RepositoryError {
    move |err| {
        let message = err.to_string();
        if unreachable(&err) {
            RepositoryError::Unavailable { action, message }
        } else {
            RepositoryError::Storage { action, message }
        }
    }
}

/// Whether `err` says the server cannot be reached, rather than that a statement
/// failed: no connection within the acquire timeout, a connection lost, or the server
/// shutting down or not accepting connections (SQLSTATE classes 08 and 57P).
pub(crate) fn unreachable(err: &sqlx::Error) -> bool {
    match err {
        sqlx::Error::PoolTimedOut
        | sqlx::Error::PoolClosed
        | sqlx::Error::Io(_)
        | sqlx::Error::Tls(_) => true,
        sqlx::Error::Database(db) => db
            .code()
            .is_some_and(|code| code.starts_with("08") || code.starts_with("57P")),
        _ => false,
    }
}

/// Now, truncated to the stored millisecond precision (the SQLite store keeps
/// milliseconds too, so both return the same instants).
pub(crate) fn now() -> Timestamp {
    use chrono::SubsecRound;
    chrono::Utc::now().trunc_subsecs(3)
}

/// Whether `err` is a unique-constraint violation (SQLSTATE 23505) on `constraint`.
pub(crate) fn violates(err: &sqlx::Error, constraint: &str) -> bool {
    matches!(err, sqlx::Error::Database(db)
        if db.code().as_deref() == Some("23505") && db.constraint() == Some(constraint))
}

/// Text as PostgreSQL can store it: `text` columns cannot hold NUL characters (SQLite
/// can), so each becomes U+FFFD REPLACEMENT CHARACTER instead of failing the write.
pub(crate) fn pg_text(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\0') {
        std::borrow::Cow::Owned(text.replace('\0', "\u{FFFD}"))
    } else {
        std::borrow::Cow::Borrowed(text)
    }
}

#[cfg(test)]
mod tests {
    use super::pg_text;

    #[test]
    fn nul_characters_become_replacement_characters() {
        for (given, stored) in [
            ("plain", "plain"),
            ("a\0b", "a\u{FFFD}b"),
            ("\0", "\u{FFFD}"),
            ("", ""),
        ] {
            assert_eq!(pg_text(given), stored, "{given:?}");
        }
    }
}
