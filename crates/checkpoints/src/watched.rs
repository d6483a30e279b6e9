//! [`Watched`]: the workspace's folders under change notifications, so that a capture
//! examines only what changed since the last one instead of every file.
//!
//! Every folder the index covers is watched before it is listed (a change after the
//! listing is then always reported). A capture drains the notices: an entry written,
//! created or removed is a file to examine again; a folder created, removed or moved
//! is a subtree to list again. Whenever the notices cannot be trusted — the kernel's
//! queue overflowed, the root itself went away, a watch could not be added, reading
//! them failed — the capture falls back to examining everything and watches afresh.

use std::collections::{BTreeSet, HashMap};

use smallebot_confined::{EntryChange, Notice, Root, WatchId, Watcher};

/// What may have changed since the notices were last read.
#[derive(Debug, Default, PartialEq, Eq)]
pub(crate) struct Changed {
    /// Files to examine again (paths relative to the root).
    pub files: BTreeSet<String>,
    /// Folders whose whole subtree is to be listed again.
    pub folders: BTreeSet<String>,
}

/// The watched folders of one workspace.
#[derive(Debug)]
pub(crate) struct Watched {
    watcher: Watcher,
    /// Each watched folder's path relative to the root (`""`: the root).
    folders: HashMap<WatchId, String>,
}

impl Watched {
    /// A watcher with nothing watched; `None` where the system has none to give.
    pub(crate) fn start() -> Option<Self> {
        Watcher::new().ok().map(|watcher| Self {
            watcher,
            folders: HashMap::new(),
        })
    }

    /// Watches `folder` beneath `root`; `false` when it could not be (the caller then
    /// stops relying on notices).
    pub(crate) fn add(&mut self, root: &Root, folder: &str) -> bool {
        let path = if folder.is_empty() { "." } else { folder };
        match self.watcher.watch(root, path) {
            Ok(id) => {
                self.folders.insert(id, folder.to_owned());
                true
            }
            Err(_) => false,
        }
    }

    /// Stops watching `folder` and every folder beneath it (they are listed, and
    /// watched, again by the caller).
    pub(crate) fn forget_under(&mut self, folder: &str) {
        let prefix = format!("{folder}/");
        let gone: Vec<WatchId> = self
            .folders
            .iter()
            .filter(|(_, path)| path.as_str() == folder || path.starts_with(&prefix))
            .map(|(id, _)| *id)
            .collect();
        for id in gone {
            self.watcher.unwatch(id);
            self.folders.remove(&id);
        }
    }

    /// What changed since the last call; `None` when anything may have (examine
    /// everything and watch afresh).
    pub(crate) fn changed(&mut self) -> Option<Changed> {
        let notices = self.watcher.drain().ok()?;
        let mut changed = Changed::default();
        for notice in notices {
            match notice {
                Notice::Overflow => return None,
                Notice::FolderGone(id) => {
                    if self.folders.get(&id).is_some_and(String::is_empty) {
                        // The root itself: the workspace is gone or moved.
                        return None;
                    }
                    // Its parent's notice says so too, and lists it again where it went
                    // (watched afresh there; a moved folder's watch would go on under
                    // its old path).
                    self.watcher.unwatch(id);
                    self.folders.remove(&id);
                }
                Notice::Entry {
                    folder,
                    name,
                    dir,
                    change,
                } => {
                    // A folder no longer watched (forgotten, or gone with its
                    // parent): whatever it was about is listed again through its
                    // parent's notice.
                    let Some(parent) = self.folders.get(&folder) else {
                        continue;
                    };
                    let path = if parent.is_empty() {
                        name
                    } else {
                        format!("{parent}/{name}")
                    };
                    match (dir, change) {
                        // A folder's own writes are its entries' notices.
                        (true, EntryChange::Written) => {}
                        (true, _) => {
                            changed.folders.insert(path);
                        }
                        (false, _) => {
                            changed.files.insert(path);
                        }
                    }
                }
            }
        }
        Some(changed)
    }
}
