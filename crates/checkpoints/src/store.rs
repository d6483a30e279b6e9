//! Where kept contents live: once per SHA-256, whoever needs them.

use std::io::Write as _;
use std::path::Path;

use smallebot_confined::{Links, Root};
use smallebot_core::rules::checkpoint::is_digest;

use crate::error::CheckpointError;

/// Kept file contents, one per SHA-256. Both stores implement it (files beside the
/// SQLite database, rows in PostgreSQL); [`FolderStore`] is the one on files.
pub trait ContentStore: Send + Sync {
    /// Whether the content of `sha256` is kept.
    ///
    /// # Errors
    /// [`CheckpointError::Store`] when the store cannot be asked.
    fn has(&self, sha256: &str) -> Result<bool, CheckpointError>;

    /// Keeps `bytes` under `sha256` (their digest; already kept is not an error).
    ///
    /// # Errors
    /// [`CheckpointError::Store`] when it cannot be written.
    fn put(&self, sha256: &str, bytes: &[u8]) -> Result<(), CheckpointError>;

    /// The content of `sha256`; `None` when it is not kept.
    ///
    /// # Errors
    /// [`CheckpointError::Store`] when it cannot be read.
    fn get(&self, sha256: &str) -> Result<Option<Vec<u8>>, CheckpointError>;
}

/// Contents as files `<folder>/<first two hex>/<sha256>`, each written to a temporary
/// name and renamed, so a crash never leaves half a content under a digest. The folder
/// is opened through the confined file system without following links.
#[derive(Debug)]
pub struct FolderStore {
    root: Root,
}

/// A [`CheckpointError::Store`].
fn failed(action: &'static str, digest: &str, message: impl ToString) -> CheckpointError {
    CheckpointError::Store {
        action,
        digest: digest.to_owned(),
        message: message.to_string(),
    }
}

impl FolderStore {
    /// The store in `folder`, created when missing.
    ///
    /// # Errors
    /// [`CheckpointError::Store`] when the folder cannot be created or opened.
    pub fn open(folder: &Path) -> Result<Self, CheckpointError> {
        let root = Root::create(folder, Links::Refuse)
            .map_err(|err| failed("open the folder for", "-", err))?;
        Ok(Self { root })
    }

    /// The relative path of `sha256`, refused unless it is a digest.
    fn name(sha256: &str) -> Result<String, CheckpointError> {
        if is_digest(sha256) {
            Ok(format!("{}/{sha256}", &sha256[..2]))
        } else {
            Err(failed(
                "name",
                sha256,
                "not a SHA-256 digest in lowercase hexadecimal",
            ))
        }
    }
}

impl ContentStore for FolderStore {
    fn has(&self, sha256: &str) -> Result<bool, CheckpointError> {
        let name = Self::name(sha256)?;
        match self.root.symlink_metadata(&name) {
            Ok(meta) => Ok(meta.is_file()),
            Err(smallebot_confined::ConfinedError::NotFound { .. }) => Ok(false),
            Err(err) => Err(failed("look up", sha256, err)),
        }
    }

    fn put(&self, sha256: &str, bytes: &[u8]) -> Result<(), CheckpointError> {
        if self.has(sha256)? {
            return Ok(());
        }
        let name = Self::name(sha256)?;
        self.root
            .create_dirs(&sha256[..2])
            .map_err(|err| failed("make the folder of", sha256, err))?;
        let temporary = format!("{}/.{sha256}.{}", &sha256[..2], std::process::id());
        let write = || -> Result<(), String> {
            let mut file = self
                .root
                .open_file(&temporary, smallebot_confined::Access::Replace)
                .map_err(|e| e.to_string())?;
            file.write_all(bytes).map_err(|e| e.to_string())?;
            file.sync_all().map_err(|e| e.to_string())?;
            self.root
                .rename(&temporary, &name)
                .map_err(|e| e.to_string())
        };
        write().map_err(|message| {
            let _ = self.root.remove_file(&temporary);
            failed(
                "keep",
                sha256,
                format!("{message}; check that the checkpoint folder may be written"),
            )
        })
    }

    fn get(&self, sha256: &str) -> Result<Option<Vec<u8>>, CheckpointError> {
        let name = Self::name(sha256)?;
        match self.root.read(&name, u64::MAX) {
            Ok(bytes) => Ok(Some(bytes)),
            Err(smallebot_confined::ConfinedError::NotFound { .. }) => Ok(None),
            Err(err) => Err(failed("read", sha256, err)),
        }
    }
}
