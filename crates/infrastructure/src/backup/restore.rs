//! Putting a backup back: checked first, a home's current files moved aside rather
//! than overwritten.

use std::path::{Path, PathBuf};

use super::files::{copy_tree, move_aside};
use super::manifest::{BackupManifest, DatabaseKind};
use super::snapshot::check_database;
use super::{CHECKPOINTS_FOLDER, CONTENTS_FOLDER, DATABASE_FILE, HomeParts, TASKS_FOLDER};
use crate::content_files::ContentFiles;
use crate::error::StoreError;

/// What [`restore_home`] did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreReport {
    /// What the backup held.
    pub manifest: BackupManifest,
    /// Where the home's files that the backup replaced were moved (nothing is deleted).
    pub moved_aside: Option<PathBuf>,
    /// Entries not copied, each with why.
    pub skipped: Vec<String>,
}

impl std::fmt::Display for RestoreReport {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let m = &self.manifest;
        match m.database {
            DatabaseKind::Sqlite => write!(
                f,
                "restored {} conversation(s) (schema {}), {} attachment content(s), {} \
                 checkpoint content(s), {} task list(s), {} configuration file(s) from the \
                 backup of {}",
                m.conversations,
                m.schema_version,
                m.attachment_contents,
                m.checkpoint_contents,
                m.task_lists,
                m.configuration_files,
                m.created_at
            )?,
            DatabaseKind::Postgres => write!(
                f,
                "restored {} configuration file(s) from the backup of {}; the conversations \
                 are in PostgreSQL: bring them back with pg_restore",
                m.configuration_files, m.created_at
            )?,
        }
        if let Some(aside) = &self.moved_aside {
            write!(f, "\nwhat was there before: {}", aside.display())?;
        }
        for skipped in &self.skipped {
            write!(f, "\nskipped {skipped}")?;
        }
        Ok(())
    }
}

/// Restores the backup folder `src` into `home` after checking it: its manifest, its
/// database (SQLite's integrity check, a schema this build reads, the conversations the
/// manifest counts) and every attachment content it names (present, and its SHA-256
/// what its name says). A home that already holds a database, task lists or
/// configuration the backup would replace is refused unless `force`; then those are
/// moved to `before-restore-<time>/` in the home, never deleted. Stop `serve` and
/// chats of that home first: a process with the old database open keeps writing to it.
///
/// # Errors
/// [`StoreError::NotABackup`], [`StoreError::RestoreRefused`] with what failed; I/O.
pub async fn restore_home(
    src: &Path,
    home: &HomeParts,
    force: bool,
) -> Result<RestoreReport, StoreError> {
    let manifest = BackupManifest::read(src)?;
    let refused = |path: &Path, reason: String| StoreError::RestoreRefused {
        path: path.to_path_buf(),
        reason,
    };
    let database = match (manifest.database, &home.database) {
        (DatabaseKind::Sqlite, Some(database)) => {
            check_contents(src, &manifest).await?;
            Some(database)
        }
        (DatabaseKind::Sqlite, None) => {
            return Err(refused(
                src,
                "holds a SQLite home's conversations, but this home's database is \
                 PostgreSQL: restore into a home without --database, then move the \
                 conversations over if you need them there"
                    .to_owned(),
            ));
        }
        (DatabaseKind::Postgres, _) => None,
    };
    // Everything of the home the backup would replace.
    let mut replaced: Vec<(PathBuf, PathBuf)> = Vec::new(); // (in the home, in the backup)
    if let Some(database) = database {
        replaced.push((database.clone(), src.join(DATABASE_FILE)));
        for suffix in ["-wal", "-shm"] {
            let side = PathBuf::from(format!("{}{suffix}", database.display()));
            replaced.push((side, PathBuf::new()));
        }
        replaced.push((
            ContentFiles::beside(database).root().to_path_buf(),
            src.join(CONTENTS_FOLDER),
        ));
        replaced.push((
            ContentFiles::checkpoints_beside(database)
                .root()
                .to_path_buf(),
            src.join(CHECKPOINTS_FOLDER),
        ));
        replaced.push((home.tasks.clone(), src.join(TASKS_FOLDER)));
    }
    let mut entries = home.configuration.clone();
    // The web users' entries the backup holds (a user of the backup may be new here).
    let users_in_backup = src.join(home.users.strip_prefix(&home.root).unwrap_or(&home.users));
    let relative_users = home.users.strip_prefix(&home.root).unwrap_or(&home.users);
    for user in super::files::folders_in(&users_in_backup)? {
        for entry in &home.user_configuration {
            entries.push(relative_users.join(&user).join(entry));
        }
    }
    for entry in &entries {
        if src.join(entry).symlink_metadata().is_ok() {
            replaced.push((home.root.join(entry), src.join(entry)));
        }
    }
    let present: Vec<&Path> = replaced
        .iter()
        .map(|(at, _)| at.as_path())
        .filter(|at| is_present(at))
        .collect();
    if !present.is_empty() && !force {
        let list: Vec<String> = present.iter().map(|p| p.display().to_string()).collect();
        return Err(refused(
            &home.root,
            format!(
                "already holds what the backup would replace ({}); pass --force to restore \
                 anyway — they are moved to {}/before-restore-<time>/, nothing is deleted",
                list.join(", "),
                home.root.display()
            ),
        ));
    }
    let moved_aside = if present.is_empty() {
        None
    } else {
        let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
        let aside = home.root.join(format!("before-restore-{stamp}"));
        for (at, _) in &replaced {
            let name = at.strip_prefix(&home.root).map_or_else(
                |_| PathBuf::from(at.file_name().unwrap_or_default()),
                Path::to_path_buf,
            );
            move_aside(at, &aside.join(name))?;
        }
        Some(aside)
    };
    let mut skipped = Vec::new();
    for (at, from) in &replaced {
        if !from.as_os_str().is_empty() {
            copy_tree(from, at, &mut skipped)?;
        }
    }
    Ok(RestoreReport {
        manifest,
        moved_aside,
        skipped,
    })
}

/// Whether `path` exists and holds something (an empty folder or file holds nothing).
fn is_present(path: &Path) -> bool {
    match path.symlink_metadata() {
        Err(_) => false,
        Ok(meta) if meta.is_dir() => std::fs::read_dir(path).is_ok_and(|mut e| e.next().is_some()),
        Ok(meta) => meta.len() > 0 || meta.file_type().is_symlink(),
    }
}

/// Checks the backup's database and that every attachment content it names is there
/// with the digest its name says.
async fn check_contents(src: &Path, manifest: &BackupManifest) -> Result<(), StoreError> {
    let database = src.join(DATABASE_FILE);
    let facts = check_database(&database).await?;
    let refused = |reason: String| StoreError::RestoreRefused {
        path: src.to_path_buf(),
        reason,
    };
    if facts.conversations != manifest.conversations {
        return Err(refused(format!(
            "its database holds {} conversation(s) but backup.json says {}: the folder was \
             changed after the backup",
            facts.conversations, manifest.conversations
        )));
    }
    let contents = ContentFiles::beside(&database);
    let mut problems = Vec::new();
    for digest in &facts.attachment_digests {
        let path = super::content_path(&contents, digest, &database)?;
        match std::fs::read(&path) {
            Err(e) => problems.push(format!("{}: {e}", path.display())),
            Ok(bytes) if smallebot_core::rules::attachment::sha256_hex(&bytes) != *digest => {
                problems.push(format!(
                    "{}: its content is not what its name says",
                    path.display()
                ));
            }
            Ok(_) => {}
        }
    }
    if !problems.is_empty() {
        let shown: Vec<&str> = problems.iter().take(5).map(String::as_str).collect();
        return Err(refused(format!(
            "{} attachment content(s) missing or damaged: {}{}",
            problems.len(),
            shown.join("; "),
            if problems.len() > shown.len() {
                "; …"
            } else {
                ""
            }
        )));
    }
    Ok(())
}
