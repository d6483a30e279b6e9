//! A home's backup and its restore: [`back_up_home`] writes a consistent copy of a
//! home — its SQLite database through SQLite's online backup API while `serve` keeps
//! writing, the attachment contents the copy names, the task lists and the home's
//! configuration — into a new folder that is itself a home; [`restore_home`] checks
//! such a folder (integrity, schema version, every attachment's content and digest)
//! before it puts it back, and never overwrites a home that holds a database unless
//! forced, moving what was there aside instead of deleting it.
//!
//! With PostgreSQL the conversations, attachments and task lists are in the database
//! (pg_dump backs it up); a backup then holds the home's files outside it.

mod files;
mod manifest;
mod restore;
mod snapshot;

use std::path::{Path, PathBuf};

pub use manifest::{BackupManifest, DatabaseKind};
pub use restore::{RestoreReport, restore_home};

use crate::content_files::ContentFiles;
use crate::error::StoreError;

/// The manifest's file name in a backup folder.
pub const MANIFEST: &str = "backup.json";

/// The database file's name in a backup folder.
pub const DATABASE_FILE: &str = "smallebot.db";

/// The attachment contents' folder in a backup folder (beside its database, as in a
/// home).
pub const CONTENTS_FOLDER: &str = crate::content_files::ATTACHMENTS_FOLDER;

/// The checkpoint contents' folder in a backup folder (beside its database).
pub const CHECKPOINTS_FOLDER: &str = crate::content_files::CHECKPOINTS_FOLDER;

/// The task lists' folder in a backup folder.
pub const TASKS_FOLDER: &str = "tasks";

/// What a home is made of, as far as a backup is concerned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HomeParts {
    /// The home folder.
    pub root: PathBuf,
    /// The SQLite database (attachment contents beside it); `None` when the home's
    /// database is PostgreSQL.
    pub database: Option<PathBuf>,
    /// The task lists' folder (a SQLite home's; PostgreSQL keeps them in a table).
    pub tasks: PathBuf,
    /// The home's own files outside the database, relative to `root` (configuration
    /// files, skills and agent folders); those missing are left out.
    pub configuration: Vec<PathBuf>,
    /// The folder of web users' own files (`users/`, each user a folder in it).
    pub users: PathBuf,
    /// What of each user's folder is copied, relative to it (their skills, agents).
    pub user_configuration: Vec<PathBuf>,
}

impl HomeParts {
    /// Every configuration entry, relative to the home: [`HomeParts::configuration`]
    /// and each web user's [`HomeParts::user_configuration`].
    ///
    /// # Errors
    /// The users' folder exists but cannot be listed.
    pub fn configuration_entries(&self) -> Result<Vec<PathBuf>, StoreError> {
        let mut entries = self.configuration.clone();
        let users = files::folders_in(&self.users)?;
        let relative = self
            .users
            .strip_prefix(&self.root)
            .unwrap_or(&self.users)
            .to_path_buf();
        for user in users {
            for entry in &self.user_configuration {
                entries.push(relative.join(&user).join(entry));
            }
        }
        Ok(entries)
    }
}

/// What [`back_up_home`] wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BackupReport {
    /// The backup folder.
    pub folder: PathBuf,
    /// What it holds.
    pub manifest: BackupManifest,
    /// Entries not copied, each with why (a link is never followed).
    pub skipped: Vec<String>,
}

impl std::fmt::Display for BackupReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = &self.manifest;
        write!(f, "backed up to {}: ", self.folder.display())?;
        match m.database {
            DatabaseKind::Sqlite => write!(
                f,
                "{} conversation(s) (schema {}), {} attachment content(s), {} checkpoint \
                 content(s), {} task list(s), {} configuration file(s)",
                m.conversations,
                m.schema_version,
                m.attachment_contents,
                m.checkpoint_contents,
                m.task_lists,
                m.configuration_files
            )?,
            DatabaseKind::Postgres => write!(
                f,
                "{} configuration file(s); the database is PostgreSQL: conversations, \
                 attachments and task lists are in it — back it up with pg_dump (e.g. \
                 `pg_dump --format=custom --file=smallebot.dump URL`) and bring it back with \
                 pg_restore",
                m.configuration_files
            )?,
        }
        for skipped in &self.skipped {
            write!(f, "\nskipped {skipped}")?;
        }
        Ok(())
    }
}

/// Writes a backup of `home` into the new folder `dest`: a consistent copy of the
/// database taken while other processes keep writing, the attachment contents it
/// names, the task lists and the configuration. The folder is written under a
/// temporary name beside `dest` and renamed when whole, so an interrupted backup never
/// looks like one.
///
/// # Errors
/// `dest` exists (a backup never overwrites); the database cannot be read; an
/// attachment content the database names is missing; a file cannot be copied.
pub async fn back_up_home(home: &HomeParts, dest: &Path) -> Result<BackupReport, StoreError> {
    if dest.symlink_metadata().is_ok() {
        return Err(StoreError::BackupRefused {
            path: dest.to_path_buf(),
            reason: "exists; a backup never overwrites anything: name a folder that does not \
                     exist yet"
                .to_owned(),
        });
    }
    let staging = files::staging_folder(dest)?;
    let result = write_into(home, staging.path()).await;
    match result {
        Ok((manifest, skipped)) => {
            let staged = staging.keep();
            std::fs::rename(&staged, dest).map_err(|source| StoreError::Io {
                action: "cannot move the finished backup to",
                path: dest.to_path_buf(),
                source,
            })?;
            Ok(BackupReport {
                folder: dest.to_path_buf(),
                manifest,
                skipped,
            })
        }
        Err(err) => Err(err), // the staging folder is removed when dropped
    }
}

/// Fills `folder` with the backup of `home`.
async fn write_into(
    home: &HomeParts,
    folder: &Path,
) -> Result<(BackupManifest, Vec<String>), StoreError> {
    let mut skipped = Vec::new();
    let mut manifest = BackupManifest::new(match home.database {
        Some(_) => DatabaseKind::Sqlite,
        None => DatabaseKind::Postgres,
    });
    if let Some(database) = &home.database {
        let copy = folder.join(DATABASE_FILE);
        let facts = snapshot::copy_database(database, &copy).await?;
        manifest.schema_version = facts.schema_version;
        manifest.conversations = facts.conversations;
        let live = ContentFiles::beside(database);
        let kept = ContentFiles::beside(&copy);
        for digest in &facts.attachment_digests {
            let from = content_path(&live, digest, database)?;
            if !from.is_file() {
                return Err(StoreError::BackupRefused {
                    path: from,
                    reason: "is named by an attachment of the database but missing: the home \
                             is damaged; nothing was backed up"
                        .to_owned(),
                });
            }
            files::copy_file(&from, &content_path(&kept, digest, database)?)?;
        }
        manifest.attachment_contents = facts.attachment_digests.len();
        // What rewinds restore files from: written once per digest (whole, then
        // renamed), so copying the folder after the snapshot holds all it names.
        manifest.checkpoint_contents = files::copy_tree(
            ContentFiles::checkpoints_beside(database).root(),
            &folder.join(CHECKPOINTS_FOLDER),
            &mut skipped,
        )?;
        manifest.task_lists =
            files::copy_tree(&home.tasks, &folder.join(TASKS_FOLDER), &mut skipped)?;
    }
    for entry in &home.configuration_entries()? {
        manifest.configuration_files +=
            files::copy_tree(&home.root.join(entry), &folder.join(entry), &mut skipped)?;
    }
    manifest.write(folder)?;
    Ok((manifest, skipped))
}

/// The file of attachment content `digest` in `contents`; a digest that cannot name a
/// file (the database at `database` is damaged) is an error about that database.
pub(super) fn content_path(
    contents: &ContentFiles,
    digest: &str,
    database: &Path,
) -> Result<PathBuf, StoreError> {
    contents
        .path(digest)
        .map_err(|e| StoreError::BackupRefused {
            path: database.to_path_buf(),
            reason: format!("names an attachment content wrongly: {e}"),
        })
}
