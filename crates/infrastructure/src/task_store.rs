//! [`FileTaskStore`]: task lists as JSON files, one per conversation (docs/design.md §6).
//!
//! `<dir>/<conversation id as 32 hex>.json`, the directory created on the first write.
//! Writes go to a temporary file in the same directory, which is flushed to disk
//! (fsync), renamed over the task file, and the directory is synced — a crash leaves
//! either the old or the new list, never half of one. Updates of one conversation are
//! serialized by a per-conversation lock held in the store, so one store must be shared
//! by everything in the process that writes task lists.
//!
//! A file that cannot be parsed is never overwritten: `load` reports it and leaves it
//! alone; `update` renames it to `<name>.corrupt-<UTC time>` (e.g.
//! `….json.corrupt-20261122T031500Z`) and applies its edit to a new, empty list, saying
//! so in `TaskUpdate::recovered`; the corrupt bytes stay on disk for a person to look at.

use std::collections::HashMap;
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use smallebot_core::ids::ConversationId;
use smallebot_core::tasks::{TaskEdit, TaskList, TaskStore, TaskStoreError, TaskUpdate};

/// Beyond this many idle per-conversation locks, idle ones are dropped.
const IDLE_LOCKS_KEPT: usize = 256;

/// Task lists stored as `<dir>/<conversation>.json`.
#[derive(Debug)]
pub struct FileTaskStore {
    dir: PathBuf,
    locks: Mutex<HashMap<ConversationId, Arc<tokio::sync::Mutex<()>>>>,
    temp_counter: AtomicU64,
}

impl FileTaskStore {
    /// A store over `dir` (usually `<home>/tasks`); nothing is created until a write.
    #[must_use]
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self {
            dir: dir.into(),
            locks: Mutex::new(HashMap::new()),
            temp_counter: AtomicU64::new(0),
        }
    }

    /// The directory holding the task files.
    #[must_use]
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The task file of a conversation (it may not exist).
    #[must_use]
    pub fn path_of(&self, conversation_id: ConversationId) -> PathBuf {
        self.dir.join(format!("{}.json", conversation_id.simple()))
    }

    /// The lock that serializes the conversation's updates.
    fn lock_of(&self, conversation_id: ConversationId) -> Arc<tokio::sync::Mutex<()>> {
        let mut locks = self.locks.lock().unwrap_or_else(PoisonError::into_inner);
        if locks.len() > IDLE_LOCKS_KEPT {
            // Only the map holds an idle lock: nobody waits on it, dropping it is safe.
            locks.retain(|_, lock| Arc::strong_count(lock) > 1);
        }
        Arc::clone(locks.entry(conversation_id).or_default())
    }

    /// A temporary file name no other write uses (process id + per-store counter).
    fn temp_path(&self, path: &Path) -> PathBuf {
        let n = self.temp_counter.fetch_add(1, Ordering::Relaxed);
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        self.dir
            .join(format!(".{name}.tmp-{}-{n}", std::process::id()))
    }
}

#[async_trait]
impl TaskStore for FileTaskStore {
    async fn load(&self, conversation_id: ConversationId) -> Result<TaskList, TaskStoreError> {
        let path = self.path_of(conversation_id);
        // A turn loads the list before every model request and after every tool call,
        // and most conversations have none: finding that out (or reading a small file)
        // costs microseconds, a trip to the blocking thread pool and back far more.
        let read = match inline_size(&path) {
            Inline::Missing => Read::Missing,
            Inline::Small => read_list(&path)?,
            Inline::OffThread => {
                let path = path.clone();
                blocking(move || read_list(&path)).await?
            }
        };
        match read {
            Read::Missing => Ok(TaskList::default()),
            Read::List(list) => Ok(list),
            Read::Corrupt(reason) => Err(TaskStoreError::Corrupt {
                path,
                preserved_as: None,
                reason,
            }),
        }
    }

    async fn update(
        &self,
        conversation_id: ConversationId,
        edit: TaskEdit,
    ) -> Result<TaskUpdate, TaskStoreError> {
        let lock = self.lock_of(conversation_id);
        let _guard = lock.lock().await;
        let path = self.path_of(conversation_id);
        let temp = self.temp_path(&path);
        let dir = self.dir.clone();
        blocking(move || {
            let mut recovered = None;
            let current = match read_list(&path)? {
                Read::Missing => TaskList::default(),
                Read::List(list) => list,
                Read::Corrupt(reason) => {
                    let kept = preserve_corrupt(&path)?;
                    tracing::warn!(
                        file = %path.display(),
                        kept_as = %kept.display(),
                        %reason,
                        "corrupt task file moved aside; the conversation starts a new task list"
                    );
                    recovered = Some(format!(
                        "the task file {} was corrupt or invalid ({reason}); it was kept as {} \
                         and a new task list was started",
                        path.display(),
                        kept.display()
                    ));
                    TaskList::default()
                }
            };
            let mut list = current.clone();
            let output = edit(&mut list)?;
            // A recovered list is written even when empty, so the corruption is gone.
            let written = list != current || recovered.is_some();
            if written {
                write_atomic(&dir, &path, &temp, &list)?;
            }
            Ok(TaskUpdate {
                output,
                list,
                written,
                recovered,
            })
        })
        .await
    }

    async fn delete(&self, conversation_id: ConversationId) -> Result<(), TaskStoreError> {
        let lock = self.lock_of(conversation_id);
        let _guard = lock.lock().await;
        let path = self.path_of(conversation_id);
        blocking(move || match std::fs::remove_file(&path) {
            Ok(()) => Ok(()),
            Err(e) if e.kind() == ErrorKind::NotFound => Ok(()),
            Err(source) => Err(io_error("delete", &path, source)),
        })
        .await
    }
}

/// Task files up to this size are read on the calling thread (a plan of a few dozen
/// tasks with their tool history is a few kilobytes); larger ones off it.
const READ_INLINE_UP_TO: u64 = 64 * 1024;

/// Where `load` reads a task file.
enum Inline {
    /// There is no file: nothing to read.
    Missing,
    /// A small regular file: read it here.
    Small,
    /// Anything else (large, not a regular file, metadata unreadable): read it off the
    /// async threads, where `read_list` also reports what is wrong with it.
    OffThread,
}

fn inline_size(path: &Path) -> Inline {
    match std::fs::metadata(path) {
        Ok(meta) if meta.is_file() && meta.len() <= READ_INLINE_UP_TO => Inline::Small,
        Err(e) if e.kind() == ErrorKind::NotFound => Inline::Missing,
        _ => Inline::OffThread,
    }
}

/// Runs blocking file work off the async threads.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T, TaskStoreError> + Send + 'static,
) -> Result<T, TaskStoreError> {
    tokio::task::spawn_blocking(work)
        .await
        .unwrap_or_else(|join| {
            Err(TaskStoreError::Io {
                action: "finish the file operation on",
                path: PathBuf::from("the task directory"),
                source: std::io::Error::other(join.to_string()),
            })
        })
}

fn io_error(action: &'static str, path: &Path, source: std::io::Error) -> TaskStoreError {
    TaskStoreError::Io {
        action,
        path: path.to_owned(),
        source,
    }
}

/// What is on disk for a conversation.
enum Read {
    Missing,
    List(TaskList),
    Corrupt(String),
}

fn read_list(path: &Path) -> Result<Read, TaskStoreError> {
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Read::Missing),
        Err(source) => return Err(io_error("read", path, source)),
    };
    Ok(match serde_json::from_slice::<TaskList>(&bytes) {
        Ok(list) => Read::List(list),
        Err(e) => Read::Corrupt(e.to_string()),
    })
}

/// Renames a corrupt file to `<name>.corrupt-<UTC time>` (`-2`, `-3`, … appended when
/// that name is taken) and returns the new path.
fn preserve_corrupt(path: &Path) -> Result<PathBuf, TaskStoreError> {
    let stamp = chrono::Utc::now().format("%Y%m%dT%H%M%SZ");
    let mut base = path.as_os_str().to_owned();
    base.push(format!(".corrupt-{stamp}"));
    let mut kept = PathBuf::from(&base);
    let mut n = 1;
    while kept.try_exists().unwrap_or(true) {
        n += 1;
        let mut name = base.clone();
        name.push(format!("-{n}"));
        kept = PathBuf::from(name);
    }
    std::fs::rename(path, &kept)
        .map_err(|source| io_error("move aside the corrupt", path, source))?;
    Ok(kept)
}

/// Writes `list` to `temp`, syncs it, renames it over `path` and syncs the directory.
fn write_atomic(
    dir: &Path,
    path: &Path,
    temp: &Path,
    list: &TaskList,
) -> Result<(), TaskStoreError> {
    std::fs::create_dir_all(dir).map_err(|source| io_error("create", dir, source))?;
    let mut bytes = serde_json::to_vec_pretty(list).map_err(|e| {
        io_error(
            "serialize the task list for",
            path,
            std::io::Error::other(e),
        )
    })?;
    bytes.push(b'\n');
    let written = (|| {
        let mut file = std::fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(temp)?;
        file.write_all(&bytes)?;
        file.sync_all()
    })();
    if let Err(source) = written {
        let _ = std::fs::remove_file(temp);
        return Err(io_error("write", temp, source));
    }
    if let Err(source) = std::fs::rename(temp, path) {
        let _ = std::fs::remove_file(temp);
        return Err(io_error("replace", path, source));
    }
    sync_dir(dir)
}

/// Makes the rename durable (directories cannot be opened for syncing on Windows).
#[cfg(unix)]
fn sync_dir(dir: &Path) -> Result<(), TaskStoreError> {
    std::fs::File::open(dir)
        .and_then(|d| d.sync_all())
        .map_err(|source| io_error("sync", dir, source))
}

#[cfg(not(unix))]
fn sync_dir(_dir: &Path) -> Result<(), TaskStoreError> {
    Ok(())
}
