//! [`FileCache`]: agent files parsed once, read again only when they change.
//!
//! Every `Delegate` call and every request that offers `Delegate` looks at the agent
//! folders, so that an edited or new file applies at once. Listing a folder is cheap;
//! reading and parsing each file again was not (its YAML front matter took about as
//! long as the rest of a sub-agent's start). A listed file whose inode, size and
//! modification time are those it had when it was read is taken from the cache.
//!
//! Modification times come from a coarse clock (a few milliseconds), so a file written
//! twice within one tick with the same size would look unchanged; a file modified less
//! than [`SETTLED`] before it was read is therefore not kept, only read again, until it
//! is older (git's index calls such entries racily clean).

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use smallebot_confined::Entry;

/// How long ago a file must have been modified for its reading to be kept.
pub const SETTLED: Duration = Duration::from_secs(2);

/// What a file was when it was read: its inode, size and modification time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Fingerprint {
    inode: u64,
    size: Option<u64>,
    modified_ns: i64,
}

impl Fingerprint {
    /// `entry`'s, when the listing could examine it (else it is read every time).
    fn of(entry: &Entry) -> Option<Self> {
        Some(Self {
            inode: entry.inode?,
            size: entry.size,
            modified_ns: entry.modified_ns?,
        })
    }

    /// Whether the file was modified at least [`SETTLED`] before `now`, so that a
    /// later write shows in its modification time.
    fn settled(self, now: SystemTime) -> bool {
        let now_ns = now
            .duration_since(SystemTime::UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
        let settled_ns = i64::try_from(SETTLED.as_nanos()).unwrap_or(i64::MAX);
        now_ns.saturating_sub(self.modified_ns) >= settled_ns
    }
}

/// Files as parsed into `T`, by path, with the fingerprint they had then
/// ([`AgentFileCache`](super::AgentFileCache) for agent files).
#[derive(Debug)]
pub struct FileCache<T> {
    files: Mutex<HashMap<PathBuf, (Fingerprint, T)>>,
}

impl<T> Default for FileCache<T> {
    fn default() -> Self {
        Self {
            files: Mutex::default(),
        }
    }
}

impl<T: Clone> FileCache<T> {
    /// An empty cache.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// The entry of the listed file `listed` at `path`: the cached one while the file
    /// is unchanged, else what `read` makes of it now (kept for next time once the
    /// file is [`SETTLED`]).
    pub(super) fn entry(&self, path: &Path, listed: &Entry, read: impl FnOnce() -> T) -> T {
        let now = SystemTime::now();
        let Some(fingerprint) = Fingerprint::of(listed).filter(|f| f.settled(now)) else {
            return read();
        };
        if let Some((seen, entry)) = self.lock().get(path)
            && *seen == fingerprint
        {
            return entry.clone();
        }
        let entry = read();
        self.lock()
            .insert(path.to_path_buf(), (fingerprint, entry.clone()));
        entry
    }

    /// Forgets the files of `root` that are not in `listed` any more (removed or
    /// renamed), so that the cache holds no more than the folders do.
    pub(super) fn keep_only(&self, root: &Path, listed: &[PathBuf]) {
        self.lock()
            .retain(|path, _| path.parent() != Some(root) || listed.contains(path));
    }

    /// How many files are cached.
    #[cfg(test)]
    pub(super) fn len(&self) -> usize {
        self.lock().len()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, (Fingerprint, T)>> {
        self.files.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use std::cell::Cell;

    use smallebot_confined::FileKind;

    use super::*;

    fn listed(name: &str, size: u64, modified_ns: Option<i64>) -> Entry {
        Entry {
            name: name.to_owned(),
            kind: FileKind::File,
            size: Some(size),
            target: None,
            inode: Some(7),
            modified_ns,
        }
    }

    fn parsed(name: &str, reads: &Cell<usize>) -> String {
        reads.set(reads.get() + 1);
        format!("{name}, read {}", reads.get())
    }

    #[test]
    fn a_file_is_read_again_only_once_it_changed() {
        let cache = FileCache::new();
        let reads = Cell::new(0);
        let path = Path::new("/home/agents/worker.md");
        let look = |entry: &Entry| cache.entry(path, entry, || parsed("worker", &reads));

        let first = look(&listed("worker.md", 100, Some(1)));
        let again = look(&listed("worker.md", 100, Some(1)));
        assert_eq!(reads.get(), 1, "an unchanged file is not read again");
        assert_eq!(again, first);

        look(&listed("worker.md", 101, Some(1)));
        assert_eq!(reads.get(), 2, "a new size reads it again");
        look(&listed("worker.md", 101, Some(2)));
        assert_eq!(reads.get(), 3, "a new modification time reads it again");
        let mut replaced = listed("worker.md", 101, Some(2));
        replaced.inode = Some(8);
        look(&replaced);
        assert_eq!(
            reads.get(),
            4,
            "another file under the name (renamed over) is read"
        );
        look(&replaced);
        assert_eq!(reads.get(), 4);
    }

    #[test]
    fn a_file_modified_moments_ago_is_read_every_time() {
        let cache = FileCache::new();
        let reads = Cell::new(0);
        let path = Path::new("/home/agents/worker.md");
        let just_now = SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap()
            .as_nanos();
        let fresh = listed("worker.md", 100, Some(i64::try_from(just_now).unwrap()));
        for _ in 0..2 {
            cache.entry(path, &fresh, || parsed("worker", &reads));
        }
        assert_eq!(reads.get(), 2, "a write within the same tick could hide");
        assert_eq!(cache.len(), 0);
    }

    #[test]
    fn a_file_the_listing_could_not_examine_is_read_every_time() {
        let cache = FileCache::new();
        let reads = Cell::new(0);
        let path = Path::new("/home/agents/worker.md");
        for _ in 0..2 {
            cache.entry(path, &listed("worker.md", 100, None), || {
                parsed("worker", &reads)
            });
        }
        assert_eq!(reads.get(), 2);
        assert_eq!(cache.len(), 0);
    }

    #[test]
    fn files_gone_from_their_folder_are_forgotten() {
        let cache = FileCache::new();
        let reads = Cell::new(0);
        let (root, other) = (
            Path::new("/home/agents"),
            Path::new("/home/users/ann/agents"),
        );
        for path in [root.join("a.md"), root.join("b.md"), other.join("a.md")] {
            cache.entry(&path, &listed("a.md", 1, Some(1)), || parsed("a", &reads));
        }
        assert_eq!(cache.len(), 3);
        cache.keep_only(root, &[root.join("b.md")]);
        assert_eq!(
            cache.len(),
            2,
            "a.md of the shared folder is gone, the user's stays"
        );
        cache.entry(&root.join("a.md"), &listed("a.md", 1, Some(1)), || {
            parsed("a", &reads)
        });
        assert_eq!(reads.get(), 4, "a file back under a forgotten name is read");
    }
}
