//! The database part of a backup: a consistent copy of a live SQLite database through
//! SQLite's online backup API, and the facts a backup and a restore check.

use std::path::{Path, PathBuf};

use rusqlite::{Connection, OpenFlags, backup::StepResult};

use crate::error::StoreError;

/// What a database copy holds, as far as a backup is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct DatabaseFacts {
    /// Its latest applied migration.
    pub(super) schema_version: i64,
    /// How many conversations it holds.
    pub(super) conversations: i64,
    /// The digests of the attachment contents it names, sorted.
    pub(super) attachment_digests: Vec<String>,
}

/// How long a backup waits for a writer's lock before it gives up.
const BUSY_WAIT: std::time::Duration = std::time::Duration::from_secs(10);

/// A failure of SQLite at `path`.
fn sqlite_failed(path: &Path, source: rusqlite::Error) -> StoreError {
    StoreError::Snapshot {
        path: path.to_path_buf(),
        source,
    }
}

/// Copies the database `live` to the new file `copy` in one step of the online backup
/// API: every page read in one read transaction, so the copy is the database as it was
/// at one moment however many writers go on. A database this build cannot read (newer
/// schema, unfinished migration) is refused first.
pub(super) async fn copy_database(live: &Path, copy: &Path) -> Result<DatabaseFacts, StoreError> {
    if crate::migrate::inspect(live).await?.is_none() {
        return Err(StoreError::NoDatabase {
            path: live.to_path_buf(),
        });
    }
    let (live, copy) = (live.to_path_buf(), copy.to_path_buf());
    blocking(move || {
        let from = Connection::open_with_flags(
            &live,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| sqlite_failed(&live, e))?;
        from.busy_timeout(BUSY_WAIT)
            .map_err(|e| sqlite_failed(&live, e))?;
        let mut to = Connection::open(&copy).map_err(|e| sqlite_failed(&copy, e))?;
        {
            let backup = rusqlite::backup::Backup::new(&from, &mut to)
                .map_err(|e| sqlite_failed(&live, e))?;
            match backup.step(-1).map_err(|e| sqlite_failed(&live, e))? {
                StepResult::Done => {}
                other => {
                    return Err(StoreError::BackupRefused {
                        path: live.clone(),
                        reason: format!(
                            "stayed locked by a writer ({other:?}) for {} s; try again",
                            BUSY_WAIT.as_secs()
                        ),
                    });
                }
            }
        }
        facts(&to, &copy)
    })
    .await
}

/// Checks the database copy at `path` for a restore: SQLite's integrity check passes
/// and its schema is one this build reads. Returns its facts.
pub(super) async fn check_database(path: &Path) -> Result<DatabaseFacts, StoreError> {
    if crate::migrate::inspect(path).await?.is_none() {
        return Err(StoreError::NoDatabase {
            path: path.to_path_buf(),
        });
    }
    let path = path.to_path_buf();
    blocking(move || {
        let conn = Connection::open_with_flags(
            &path,
            OpenFlags::SQLITE_OPEN_READ_ONLY | OpenFlags::SQLITE_OPEN_NO_MUTEX,
        )
        .map_err(|e| sqlite_failed(&path, e))?;
        let problems: Vec<String> = conn
            .prepare("PRAGMA integrity_check(20)")
            .and_then(|mut s| {
                s.query_map([], |row| row.get::<_, String>(0))?
                    .collect::<Result<_, _>>()
            })
            .map_err(|e| sqlite_failed(&path, e))?;
        if problems != ["ok"] {
            return Err(StoreError::RestoreRefused {
                path: path.clone(),
                reason: format!("fails SQLite's integrity check: {}", problems.join("; ")),
            });
        }
        facts(&conn, &path)
    })
    .await
}

/// The facts of the database open on `conn`.
fn facts(conn: &Connection, path: &Path) -> Result<DatabaseFacts, StoreError> {
    let failed = |e| sqlite_failed(path, e);
    let schema_version: i64 = conn
        .query_row(
            "SELECT COALESCE(MAX(version), 0) FROM _sqlx_migrations WHERE success",
            [],
            |row| row.get(0),
        )
        .map_err(failed)?;
    let conversations: i64 = conn
        .query_row("SELECT COUNT(*) FROM conversations", [], |row| row.get(0))
        .map_err(failed)?;
    // A schema from before attachments (an older home not opened since) has none.
    let has_attachments: bool = conn
        .query_row(
            "SELECT COUNT(*) > 0 FROM sqlite_master WHERE type = 'table' AND name = 'attachments'",
            [],
            |row| row.get(0),
        )
        .map_err(failed)?;
    let attachment_digests = if has_attachments {
        conn.prepare("SELECT DISTINCT sha256 FROM attachments ORDER BY sha256")
            .and_then(|mut s| {
                s.query_map([], |row| row.get::<_, String>(0))?
                    .collect::<Result<_, _>>()
            })
            .map_err(failed)?
    } else {
        Vec::new()
    };
    Ok(DatabaseFacts {
        schema_version,
        conversations,
        attachment_digests,
    })
}

/// Runs `work` on a blocking thread.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, StoreError> + Send + 'static,
) -> Result<T, StoreError> {
    tokio::task::spawn_blocking(work).await.unwrap_or_else(|e| {
        Err(StoreError::BackupRefused {
            path: PathBuf::new(),
            reason: format!("the copying thread stopped: {e}"),
        })
    })
}
