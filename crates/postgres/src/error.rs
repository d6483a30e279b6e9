//! Errors of connecting to and migrating a PostgreSQL database.

/// Why a PostgreSQL database could not be used. The URL in messages never shows a
/// password.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PgStoreError {
    /// The URL does not parse as a PostgreSQL connection URL.
    #[error("'{url}' is not a PostgreSQL URL ({reason}); write postgres://user@host:port/database")]
    BadUrl {
        /// The URL, password removed.
        url: String,
        /// What the parser said.
        reason: String,
    },
    /// The server could not be reached or refused the connection.
    #[error(
        "cannot connect to PostgreSQL at {url}: {source}; check that the server runs and \
         that the user may connect to the database"
    )]
    Connect {
        /// The URL, password removed.
        url: String,
        /// What sqlx said.
        #[source]
        source: sqlx::Error,
    },
    /// The database was migrated by a newer SmallEBot.
    #[error(
        "the database at {url} has schema version {found}, newer than this build knows \
         (latest {known}); nothing was changed. Upgrade smallebot to use it."
    )]
    SchemaTooNew {
        /// The URL, password removed.
        url: String,
        /// The highest version recorded in the database.
        found: i64,
        /// The highest version this build embeds.
        known: i64,
    },
    /// A previous migration was left unfinished.
    #[error(
        "the database at {url}: migration {version} was left unfinished by an earlier run; \
         repair it by hand (PostgreSQL migrations run in a transaction, so this is rare)"
    )]
    DirtyMigration {
        /// The URL, password removed.
        url: String,
        /// The unfinished migration.
        version: i64,
    },
    /// Applying or reading the migrations failed.
    #[error("migrating the database at {url} failed: {message}")]
    Migrate {
        /// The URL, password removed.
        url: String,
        /// What went wrong.
        message: String,
    },
}

/// `url` without its password, for messages and logs.
#[must_use]
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_owned();
    };
    let (authority, tail) = rest.split_at(rest.find('/').unwrap_or(rest.len()));
    match authority.rsplit_once('@') {
        Some((credentials, host)) => {
            let user = credentials.split(':').next().unwrap_or_default();
            if credentials.contains(':') {
                format!("{scheme}://{user}:***@{host}{tail}")
            } else {
                url.to_owned()
            }
        }
        None => url.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::redact_url;

    #[test]
    fn passwords_never_show() {
        let cases = [
            (
                "postgres://bob:secret@db:5432/app",
                "postgres://bob:***@db:5432/app",
            ),
            ("postgres://bob@db/app", "postgres://bob@db/app"),
            ("postgresql://db/app", "postgresql://db/app"),
            ("postgres://bob:s@cr@t@db/app", "postgres://bob:***@db/app"),
            ("not a url", "not a url"),
        ];
        for (url, shown) in cases {
            assert_eq!(redact_url(url), shown, "{url}");
        }
    }
}
