//! [`Root`] where there is no Unix: every operation is refused, nothing is touched.

use std::fs::File;
use std::path::{Path, PathBuf};

use crate::error::ConfinedError;
use crate::kind::{Entry, Metadata};
use crate::{Access, Links, Resolver};

/// A folder whose paths would be resolved beneath it (refused on this system).
#[derive(Debug)]
pub struct Root {
    path: PathBuf,
    links: Links,
}

fn refused<T>(path: &Path) -> Result<T, ConfinedError> {
    Err(ConfinedError::Unsupported {
        path: path.display().to_string(),
    })
}

impl Root {
    /// Refused: this system cannot resolve beneath a handle.
    ///
    /// # Errors
    /// Always [`ConfinedError::Unsupported`].
    pub fn open(path: impl AsRef<Path>, links: Links) -> Result<Self, ConfinedError> {
        let _ = links;
        refused(path.as_ref())
    }
    /// Refused: this system cannot resolve beneath a handle.
    ///
    /// # Errors
    /// Always [`ConfinedError::Unsupported`].
    pub fn create(path: impl AsRef<Path>, links: Links) -> Result<Self, ConfinedError> {
        Self::open(path, links)
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn open_read(&self, path: impl AsRef<Path>) -> Result<(File, Metadata), ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn create_dir(&self, path: impl AsRef<Path>) -> Result<(), ConfinedError> {
        refused(path.as_ref())
    }
    /// Unchanged.
    #[must_use]
    pub fn with_resolver(self, _: Resolver) -> Self {
        self
    }
    /// [`Resolver::Walk`].
    #[must_use]
    pub fn resolver(&self) -> Resolver {
        Resolver::Walk
    }
    /// The link rule.
    #[must_use]
    pub fn links(&self) -> Links {
        self.links
    }
    /// The root's path.
    #[must_use]
    pub fn path(&self) -> &Path {
        &self.path
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn open_file(&self, path: impl AsRef<Path>, _: Access) -> Result<File, ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn read(&self, path: impl AsRef<Path>, _: u64) -> Result<Vec<u8>, ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn create_new(&self, path: impl AsRef<Path>) -> Result<File, ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn create_dirs(&self, path: impl AsRef<Path>) -> Result<(), ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn open_dir(&self, path: impl AsRef<Path>) -> Result<Self, ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn read_dir(&self, path: impl AsRef<Path>) -> Result<Vec<Entry>, ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn metadata(&self, path: impl AsRef<Path>) -> Result<Metadata, ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn symlink_metadata(&self, path: impl AsRef<Path>) -> Result<Metadata, ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn rename(&self, from: impl AsRef<Path>, _: impl AsRef<Path>) -> Result<(), ConfinedError> {
        refused(from.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn remove_file(&self, path: impl AsRef<Path>) -> Result<(), ConfinedError> {
        refused(path.as_ref())
    }
    /// Refused.
    ///
    /// # Errors
    /// Always.
    pub fn remove_dir_all(&self, path: impl AsRef<Path>) -> Result<(), ConfinedError> {
        refused(path.as_ref())
    }
}
