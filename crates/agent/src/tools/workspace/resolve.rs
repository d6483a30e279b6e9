//! Path confinement: turning a model-given path into a real path inside the workspace.
//!
//! Resolution has two steps. First the lexical check of
//! [`smallebot_core::rules::workspace_path`] refuses what is wrong on its face (absolute
//! paths, `..` above the root, backslashes, NUL bytes, over-long paths, `~`) and
//! normalizes the rest. Then the normalized path is joined to the *canonical* root and
//! canonicalized with every symlink followed; the result must stay inside the canonical
//! root, compared component by component (so a sibling `workspace2` is outside). A path
//! that does not exist yet is checked through its deepest existing ancestor, and the
//! first missing component must not exist even as a dangling symlink (writing through one
//! would create its target, possibly outside).
//!
//! The check gives the clear error messages and touches no file's content; the open
//! that follows does not trust it: files are opened and directories created through
//! [`smallebot_confined::Root`] beneath a handle on the root, the kernel refusing to
//! leave it, so a command that swaps a directory for a symlink between the two cannot
//! lead a tool outside. The tools follow links that stay inside the workspace
//! ([`Links::Beneath`]); where the kernel cannot resolve beneath a handle (no
//! `openat2`) they follow none.

use std::io;
use std::path::{Path, PathBuf};

use smallebot_confined::{ConfinedError, Links, Root};
use smallebot_core::rules::workspace_path::{PathRuleError, check_relative_path};

/// Why a workspace path could not be used. Each message says what is wrong and what to
/// do instead; tools prefix it with `Error: `.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WorkspaceError {
    /// The path was refused by the lexical check.
    #[error("{0}")]
    Refused(#[from] PathRuleError),
    /// The path resolves, through a symlink, to a place outside the workspace.
    #[error(
        "path '{path}' leads through a symbolic link to a place outside the workspace; \
         only files inside the workspace root can be used, so give a path that does not \
         go through that link"
    )]
    OutsideWorkspace {
        /// The path as normalized.
        path: String,
    },
    /// The path goes through a loop of symlinks.
    #[error(
        "path '{path}' goes through a loop of symbolic links (too many levels); remove or \
         fix the link, or use another path"
    )]
    SymlinkLoop {
        /// The path as normalized.
        path: String,
    },
    /// The path is, or goes through, a symlink whose target does not exist.
    #[error(
        "'{path}' is a symbolic link whose target does not exist; writing through it \
         could create a file outside the workspace, so remove the link or use another path"
    )]
    DanglingSymlink {
        /// The link, relative to the workspace root.
        path: String,
    },
    /// Nothing exists at the path.
    #[error(
        "'{path}' does not exist in the workspace; call ListFiles to see what is there \
         (paths are relative to the workspace root)"
    )]
    NotFound {
        /// The path as normalized.
        path: String,
    },
    /// A parent of the path is a file.
    #[error(
        "'{parent}' is a file, not a directory, so '{path}' cannot be inside it; choose \
         another path"
    )]
    ParentNotDirectory {
        /// The path as normalized.
        path: String,
        /// The offending parent, relative to the workspace root.
        parent: String,
    },
    /// The workspace directory itself could not be created or opened.
    #[error(
        "the workspace directory '{root}' could not be created or opened ({source}); \
         check that the home directory exists and is writable"
    )]
    Root {
        /// The configured root.
        root: String,
        /// The underlying failure.
        source: io::Error,
    },
    /// The confined file system refused the path or the file (a link where links are
    /// not followed, a device or pipe, …).
    #[error("could not {action} '{path}': {source}")]
    Confined {
        /// What was being done.
        action: &'static str,
        /// The path as normalized.
        path: String,
        /// What was refused, and why.
        source: ConfinedError,
    },
    /// Another file system failure.
    #[error("could not {action} '{path}': {source}")]
    Io {
        /// What was being done ("read", "create the directory", …).
        action: &'static str,
        /// The path as normalized.
        path: String,
        /// The underlying failure.
        source: io::Error,
    },
}

impl WorkspaceError {
    /// Whether this is a confinement refusal (the path is malformed, points outside or
    /// cannot be resolved safely) rather than an ordinary failure such as a missing file.
    #[must_use]
    pub fn is_refusal(&self) -> bool {
        match self {
            Self::Refused(_)
            | Self::OutsideWorkspace { .. }
            | Self::DanglingSymlink { .. }
            | Self::SymlinkLoop { .. } => true,
            Self::Confined { source, .. } => source.is_refusal(),
            _ => false,
        }
    }

    /// Wraps a failure of the confined file system on `path`: the kernel refusing to
    /// leave the root (a link swapped in after the check) is [`Self::OutsideWorkspace`].
    pub(crate) fn confined(action: &'static str, path: &str, source: ConfinedError) -> Self {
        let path = path.to_owned();
        match source {
            ConfinedError::Escape { .. } => Self::OutsideWorkspace { path },
            ConfinedError::Loop { .. } => Self::SymlinkLoop { path },
            ConfinedError::NotFound { .. } => Self::NotFound { path },
            ConfinedError::Io { source, .. } => Self::io(action, &path, source),
            source => Self::Confined {
                action,
                path,
                source,
            },
        }
    }

    /// Wraps an I/O failure, recognizing symlink loops.
    pub(crate) fn io(action: &'static str, path: &str, source: io::Error) -> Self {
        if is_symlink_loop(&source) {
            Self::SymlinkLoop {
                path: path.to_owned(),
            }
        } else {
            Self::Io {
                action,
                path: path.to_owned(),
                source,
            }
        }
    }
}

/// Whether an I/O error is `ELOOP` (`ErrorKind::FilesystemLoop` is not stable yet).
fn is_symlink_loop(error: &io::Error) -> bool {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    const ELOOP: i32 = 40;
    #[cfg(not(any(target_os = "linux", target_os = "android")))]
    const ELOOP: i32 = 62;
    error.raw_os_error() == Some(ELOOP) || format!("{:?}", error.kind()) == "FilesystemLoop"
}

/// A path resolved inside the workspace: the deepest existing ancestor (canonical) and
/// the plain names below it that do not exist yet.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Resolved {
    display: String,
    existing: PathBuf,
    missing: Vec<String>,
    root: PathBuf,
}

impl Resolved {
    /// The path as the model gave it, normalized (`.` for the root).
    #[must_use]
    pub fn display(&self) -> &str {
        &self.display
    }

    /// The normalized path relative to the root (`""` for the root itself).
    #[must_use]
    pub fn relative(&self) -> &str {
        if self.display == "." {
            ""
        } else {
            &self.display
        }
    }

    /// Whether the whole path exists.
    #[must_use]
    pub fn exists(&self) -> bool {
        self.missing.is_empty()
    }

    /// The full path: the canonical existing part joined with the missing names.
    #[must_use]
    pub fn path(&self) -> PathBuf {
        self.missing
            .iter()
            .fold(self.existing.clone(), |path, name| path.join(name))
    }

    /// The canonical workspace root.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// Whether this is the workspace root itself.
    #[must_use]
    pub fn is_root(&self) -> bool {
        self.missing.is_empty() && self.existing == self.root
    }

    /// A handle on the workspace root: everything a tool opens, creates or lists goes
    /// through it, links followed only while they stay inside.
    ///
    /// # Errors
    /// [`WorkspaceError::Root`] when the root cannot be opened.
    pub(crate) fn confined(&self) -> Result<Root, WorkspaceError> {
        Root::open(&self.root, Links::Beneath).map_err(|error| WorkspaceError::Root {
            root: self.root.display().to_string(),
            source: match error {
                ConfinedError::Root { source, .. } => source,
                other => io::Error::other(other.to_string()),
            },
        })
    }
}

/// The workspace: a directory (`<home>/workspace`) that file tools are confined to.
#[derive(Debug, Clone)]
pub struct Workspace {
    root: PathBuf,
}

impl Workspace {
    /// A workspace at `root` (created on first use).
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
    }

    /// The configured root, as given.
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The root made absolute (lexically, without touching the file system), as text.
    #[must_use]
    pub fn absolute_root(&self) -> String {
        std::path::absolute(&self.root)
            .unwrap_or_else(|_| self.root.clone())
            .to_string_lossy()
            .into_owned()
    }

    /// What a file tool called with the path argument `path` writes: the path resolved
    /// lexically against the absolute root (nothing for an empty or device path).
    #[must_use]
    pub fn written_path(&self, path: &str) -> Vec<String> {
        smallebot_shell::resolve_written_path(&self.absolute_root(), path)
            .into_iter()
            .collect()
    }

    /// Creates the root if needed and returns it canonicalized.
    ///
    /// # Errors
    /// [`WorkspaceError::Root`] when it cannot be created or resolved.
    pub fn canonical_root(&self) -> Result<PathBuf, WorkspaceError> {
        let failed = |source| WorkspaceError::Root {
            root: self.root.display().to_string(),
            source,
        };
        std::fs::create_dir_all(&self.root).map_err(failed)?;
        std::fs::canonicalize(&self.root).map_err(failed)
    }

    /// Resolves a path that may not exist yet (for writing or creating). Blocking.
    ///
    /// # Errors
    /// A [`WorkspaceError`] when the path is refused or cannot be examined.
    pub fn resolve(&self, input: &str) -> Result<Resolved, WorkspaceError> {
        let normalized = check_relative_path(input)?;
        let display = normalized.to_string();
        let root = self.canonical_root()?;
        let names = normalized.components();
        let prefix = |n: usize| names[..n].iter().fold(root.clone(), |p, c| p.join(c));
        let mut depth = names.len();
        let existing = loop {
            match std::fs::canonicalize(prefix(depth)) {
                Ok(real) => break real,
                // Not there, or under a file: look one level up (a file parent is
                // reported below, once it is known to be inside).
                Err(error)
                    if depth > 0
                        && matches!(
                            error.kind(),
                            io::ErrorKind::NotFound | io::ErrorKind::NotADirectory
                        ) =>
                {
                    depth -= 1;
                }
                Err(error) => return Err(WorkspaceError::io("resolve", &display, error)),
            }
        };
        if !existing.starts_with(&root) {
            return Err(WorkspaceError::OutsideWorkspace { path: display });
        }
        if depth < names.len() {
            if !existing.is_dir() {
                return Err(WorkspaceError::ParentNotDirectory {
                    path: display,
                    parent: names[..depth].join("/"),
                });
            }
            // canonicalize failed one level down: if anything is there, it is a dangling link.
            match std::fs::symlink_metadata(existing.join(&names[depth])) {
                Ok(_) => {
                    return Err(WorkspaceError::DanglingSymlink {
                        path: names[..=depth].join("/"),
                    });
                }
                Err(error) if error.kind() == io::ErrorKind::NotFound => {}
                Err(error) => return Err(WorkspaceError::io("resolve", &display, error)),
            }
        }
        Ok(Resolved {
            display,
            existing,
            missing: names[depth..].to_vec(),
            root,
        })
    }

    /// Resolves a path that must exist (for reading or listing). Blocking.
    ///
    /// # Errors
    /// As [`Workspace::resolve`], plus [`WorkspaceError::NotFound`].
    pub fn resolve_existing(&self, input: &str) -> Result<Resolved, WorkspaceError> {
        let resolved = self.resolve(input)?;
        if resolved.exists() {
            Ok(resolved)
        } else {
            Err(WorkspaceError::NotFound {
                path: resolved.display,
            })
        }
    }
}
