//! Attachment content as files: `<home>/attachments/<first two hex>/<sha256>`, one file
//! per digest however many attachments share it (home: the database's directory).
//!
//! A file is written to a temporary file in its directory, synced, and renamed to its
//! name, so a crash never leaves a half file under a digest; a crash between the rename
//! and the commit of the row leaves a whole file no row names, which is harmless (the
//! same upload again finds it). Files are removed only after the commit that deleted
//! their last row (`write/attachments.rs`, `sweep`).

use std::io::Write as _;
use std::path::{Path, PathBuf};

use smallebot_core::RepositoryError;
use smallebot_core::repository::RepoResult;

/// The attachment contents' folder beside the database.
pub(crate) const ATTACHMENTS_FOLDER: &str = "attachments";
/// The checkpoint contents' folder beside the database.
pub(crate) const CHECKPOINTS_FOLDER: &str = "checkpoints";

/// The folder of attachment content, next to the database.
#[derive(Debug, Clone)]
pub(crate) struct ContentFiles {
    root: PathBuf,
}

/// A storage error about the file at `path`.
fn failed(action: &'static str, path: &Path, err: &std::io::Error) -> RepositoryError {
    RepositoryError::Storage {
        action,
        message: format!(
            "{}: {err}; check that the folder exists and may be written",
            path.display()
        ),
    }
}

impl ContentFiles {
    /// The content folder of the database at `database`: `attachments/` beside it.
    pub(crate) fn beside(database: &Path) -> Self {
        Self::named(database, ATTACHMENTS_FOLDER)
    }

    /// The checkpoint content folder of the database at `database`: `checkpoints/`
    /// beside it.
    pub(crate) fn checkpoints_beside(database: &Path) -> Self {
        Self::named(database, CHECKPOINTS_FOLDER)
    }

    /// The content folder `name` beside the database at `database` (checkpoint
    /// contents are kept the same way, in `checkpoints/`).
    pub(crate) fn named(database: &Path, name: &str) -> Self {
        let home = database
            .parent()
            .filter(|dir| !dir.as_os_str().is_empty())
            .unwrap_or_else(|| Path::new("."));
        Self {
            root: home.join(name),
        }
    }

    /// The folder itself.
    pub(crate) fn root(&self) -> &Path {
        &self.root
    }

    /// The file of digest `sha256`; refused unless it is 64 lowercase hex digits (so a
    /// digest can never name a path outside the folder).
    pub(crate) fn path(&self, sha256: &str) -> RepoResult<PathBuf> {
        let valid = sha256.len() == 64
            && sha256
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        if !valid {
            return Err(RepositoryError::Conflict(format!(
                "'{sha256}' is not a SHA-256 digest in lowercase hexadecimal"
            )));
        }
        Ok(self.root.join(&sha256[..2]).join(sha256))
    }

    /// Whether the content of `sha256` is stored.
    pub(crate) fn exists(&self, sha256: &str) -> RepoResult<bool> {
        Ok(self.path(sha256)?.is_file())
    }

    /// Stores `content` under `sha256` unless a file is there already (same digest,
    /// same bytes): temporary file, sync, rename.
    pub(crate) fn write(&self, sha256: &str, content: &[u8]) -> RepoResult<()> {
        const ACTION: &str = "storing a content file";
        let path = self.path(sha256)?;
        if path.is_file() {
            return Ok(());
        }
        let dir = path.parent().unwrap_or(&self.root);
        std::fs::create_dir_all(dir).map_err(|e| failed(ACTION, dir, &e))?;
        let mut temp = tempfile::Builder::new()
            .prefix(".upload-")
            .tempfile_in(dir)
            .map_err(|e| failed(ACTION, dir, &e))?;
        temp.write_all(content)
            .and_then(|()| temp.as_file().sync_all())
            .map_err(|e| failed(ACTION, temp.path(), &e))?;
        temp.persist(&path)
            .map_err(|e| failed(ACTION, &path, &e.error))?;
        sync_dir(dir);
        Ok(())
    }

    /// The content stored under `sha256`; `None` when its file is missing.
    pub(crate) fn read(&self, sha256: &str) -> RepoResult<Option<Vec<u8>>> {
        let path = self.path(sha256)?;
        match std::fs::read(&path) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(err) => Err(failed("reading a content file", &path, &err)),
        }
    }

    /// Removes the file of `sha256` (a missing one is fine); a failure is logged, not
    /// returned: the rows are gone already, and a leftover file is harmless.
    pub(crate) fn remove(&self, sha256: &str) {
        let Ok(path) = self.path(sha256) else {
            return;
        };
        match std::fs::remove_file(&path) {
            Ok(()) => {}
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
            Err(err) => {
                tracing::warn!(path = %path.display(), %err, "removing unused content failed");
            }
        }
    }
}

impl ContentFiles {
    /// Every content file in the folder: its digest, size and modification time (when
    /// it was kept). Temporary files and other names are left out; a missing folder
    /// holds none.
    pub(crate) fn list(&self) -> RepoResult<Vec<(String, u64, std::time::SystemTime)>> {
        const ACTION: &str = "listing the content files";
        let mut found = Vec::new();
        let shards = match std::fs::read_dir(&self.root) {
            Ok(shards) => shards,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(found),
            Err(err) => return Err(failed(ACTION, &self.root, &err)),
        };
        for shard in shards {
            let shard = shard.map_err(|e| failed(ACTION, &self.root, &e))?;
            if !shard.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let dir = shard.path();
            for entry in std::fs::read_dir(&dir).map_err(|e| failed(ACTION, &dir, &e))? {
                let entry = entry.map_err(|e| failed(ACTION, &dir, &e))?;
                let Some(name) = entry.file_name().to_str().map(str::to_owned) else {
                    continue;
                };
                if self.path(&name).ok().as_deref() != Some(entry.path().as_path()) {
                    continue;
                }
                let meta = entry
                    .metadata()
                    .map_err(|e| failed(ACTION, &entry.path(), &e))?;
                if meta.is_file() {
                    let kept = meta
                        .modified()
                        .map_err(|e| failed(ACTION, &entry.path(), &e))?;
                    found.push((name, meta.len(), kept));
                }
            }
        }
        Ok(found)
    }
}

/// Makes a rename durable where directories can be synced; best effort.
fn sync_dir(dir: &Path) {
    if let Ok(handle) = std::fs::File::open(dir) {
        let _ = handle.sync_all();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn digests_name_files_inside_the_folder_only() {
        let files = ContentFiles::beside(Path::new("/home/me/db.sqlite"));
        let good = "ab".repeat(32);
        assert_eq!(
            files.path(&good).ok(),
            Some(PathBuf::from(format!("/home/me/attachments/ab/{good}")))
        );
        for bad in [
            "",
            "../etc/passwd",
            &"AB".repeat(32),
            &"ab".repeat(31),
            &"zz".repeat(32),
        ] {
            assert!(files.path(bad).is_err(), "{bad}");
        }
        let relative = ContentFiles::beside(Path::new("db.sqlite"));
        assert_eq!(
            relative.path(&good).ok(),
            Some(PathBuf::from(format!("./attachments/ab/{good}")))
        );
    }
}
