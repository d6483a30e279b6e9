//! One migration at a time per database, across processes.
//!
//! SQLite has no lock that spans several transactions, and each migration is its own
//! transaction: two processes opening the same new or older database at once would
//! both apply the same migrations, and the second would fail half way ("table …
//! already exists"). So whoever finds migrations pending takes an exclusive lock on a
//! file beside the database (`<db>.migrate-lock`), checks again under it, and backs up
//! and migrates while holding it. The others wait, then find nothing left to do.
//! Closing the file releases the lock, also when the process dies.

use std::fs::{File, OpenOptions};
use std::path::{Path, PathBuf};

use crate::error::StoreError;
use crate::open::create_parent_dir;

/// The suffix of the lock file beside a database.
pub(crate) const MIGRATE_LOCK_SUFFIX: &str = ".migrate-lock";

/// Held while a database is checked, backed up and migrated; released on drop.
#[derive(Debug)]
pub(crate) struct MigrationLock {
    /// The locked file; closing it releases the lock.
    _file: File,
}

/// The lock file of the database at `database`.
pub(crate) fn lock_path(database: &Path) -> PathBuf {
    let mut name = database.as_os_str().to_owned();
    name.push(MIGRATE_LOCK_SUFFIX);
    PathBuf::from(name)
}

impl MigrationLock {
    /// Waits until no other process migrates the database at `database`, then holds
    /// its lock.
    ///
    /// # Errors
    /// [`StoreError::Io`] when the directory or the lock file cannot be created, or the
    /// file cannot be locked (a directory that may not be written, for one).
    pub(crate) async fn acquire(database: &Path) -> Result<Self, StoreError> {
        create_parent_dir(database)?;
        let path = lock_path(database);
        let waited_for = path.clone();
        tokio::task::spawn_blocking(move || Self::acquire_blocking(path))
            .await
            .map_err(|join| StoreError::Io {
                action: "cannot wait for the migration lock",
                path: waited_for,
                source: std::io::Error::other(join.to_string()),
            })?
    }

    fn acquire_blocking(path: PathBuf) -> Result<Self, StoreError> {
        let file = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&path)
            .map_err(|source| StoreError::Io {
                action: "cannot create the migration lock",
                path: path.clone(),
                source,
            })?;
        file.lock().map_err(|source| StoreError::Io {
            action: "cannot take the migration lock",
            path,
            source,
        })?;
        Ok(Self { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn the_lock_file_sits_beside_the_database() {
        assert_eq!(
            lock_path(Path::new("/home/me/.agents/smallebot.db")),
            Path::new("/home/me/.agents/smallebot.db.migrate-lock")
        );
    }

    #[tokio::test]
    async fn a_second_holder_waits_until_the_first_lets_go() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("smallebot.db");
        let first = MigrationLock::acquire(&db).await.unwrap();
        let waiting = tokio::spawn({
            let db = db.clone();
            async move { MigrationLock::acquire(&db).await }
        });
        tokio::time::sleep(Duration::from_millis(200)).await;
        assert!(!waiting.is_finished(), "taken while held");
        drop(first);
        let second = tokio::time::timeout(Duration::from_secs(10), waiting)
            .await
            .expect("taken once released")
            .unwrap();
        assert!(second.is_ok());
    }

    #[tokio::test]
    async fn a_lock_that_cannot_be_created_is_an_io_error_naming_the_file() {
        let dir = tempfile::tempdir().unwrap();
        let db = dir.path().join("smallebot.db");
        // A directory where the lock file should be: it cannot be opened for writing.
        std::fs::create_dir(lock_path(&db)).unwrap();
        let err = MigrationLock::acquire(&db).await.unwrap_err();
        let message = err.to_string();
        assert!(
            message.starts_with(&format!(
                "cannot create the migration lock {}:",
                lock_path(&db).display()
            )),
            "{message}"
        );
    }
}
