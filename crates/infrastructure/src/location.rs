//! Where a database is, as given on a command line: a SQLite file path, or a URL whose
//! scheme says the engine. A URL is never taken for a path (`postgres://host/db` once
//! made a directory named `postgres:`).

use std::path::PathBuf;

/// A database to open.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DatabaseLocation {
    /// A SQLite file.
    Sqlite(PathBuf),
    /// A PostgreSQL database: the URL as given (`postgres://` or `postgresql://`).
    Postgres(String),
}

/// Why a database argument cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocationError {
    /// A URL with a scheme no store serves.
    #[error(
        "'{given}' has the scheme '{scheme}', which no store serves; give the path of a SQLite file (or sqlite://PATH) or a postgres:// URL"
    )]
    UnknownScheme {
        /// What was given.
        given: String,
        /// Its scheme.
        scheme: String,
    },
    /// Nothing given.
    #[error("the database location is empty; give the path of a SQLite file or a postgres:// URL")]
    Empty,
}

impl DatabaseLocation {
    /// Reads `given`: `sqlite://PATH` or `sqlite:PATH` or a plain path is SQLite;
    /// `postgres://…` or `postgresql://…` is PostgreSQL; any other `scheme://` is an
    /// error naming it.
    ///
    /// # Errors
    /// [`LocationError`] for an empty value or an unknown scheme.
    pub fn parse(given: &str) -> Result<Self, LocationError> {
        if given.trim().is_empty() {
            return Err(LocationError::Empty);
        }
        for prefix in ["sqlite://", "sqlite:"] {
            if let Some(path) = given.strip_prefix(prefix) {
                if path.is_empty() {
                    return Err(LocationError::Empty);
                }
                return Ok(Self::Sqlite(PathBuf::from(path)));
            }
        }
        if let Some((scheme, _)) = given.split_once("://") {
            let valid_scheme = !scheme.is_empty()
                && scheme
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'));
            if valid_scheme {
                return Err(match scheme.to_ascii_lowercase().as_str() {
                    "postgres" | "postgresql" => return Ok(Self::Postgres(given.to_owned())),
                    _ => LocationError::UnknownScheme {
                        given: given.to_owned(),
                        scheme: scheme.to_owned(),
                    },
                });
            }
        }
        Ok(Self::Sqlite(PathBuf::from(given)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn location_table() {
        let sqlite = |p: &str| Ok(DatabaseLocation::Sqlite(PathBuf::from(p)));
        let cases: Vec<(&str, Result<DatabaseLocation, LocationError>)> = vec![
            ("smallebot.db", sqlite("smallebot.db")),
            ("/var/lib/bot/db.sqlite", sqlite("/var/lib/bot/db.sqlite")),
            ("sqlite:///var/db.sqlite", sqlite("/var/db.sqlite")),
            ("sqlite:rel.db", sqlite("rel.db")),
            ("./odd://name.db", sqlite("./odd://name.db")),
            (
                "postgres://user@host:5432/db",
                Ok(DatabaseLocation::Postgres(
                    "postgres://user@host:5432/db".into(),
                )),
            ),
            (
                "PostgreSQL://h/db",
                Ok(DatabaseLocation::Postgres("PostgreSQL://h/db".into())),
            ),
            (
                "mysql://h/db",
                Err(LocationError::UnknownScheme {
                    given: "mysql://h/db".into(),
                    scheme: "mysql".into(),
                }),
            ),
            ("", Err(LocationError::Empty)),
            ("sqlite://", Err(LocationError::Empty)),
        ];
        for (given, expected) in cases {
            assert_eq!(DatabaseLocation::parse(given), expected, "{given}");
        }
    }
}
