//! The lexical part of workspace path confinement.
//!
//! File tools receive paths from the model, relative to the workspace root. Before any
//! file system access (canonicalizing, following symlinks — done by the infrastructure
//! crate), [`check_relative_path`] refuses what is wrong on its face and normalizes the
//! rest:
//!
//! - `""` and `"."` mean the root itself (no components);
//! - `/` is the only separator; empty and `.` components are dropped, so `a/./b//c/`
//!   becomes `a/b/c`;
//! - `..` removes the previous component (`a/../b` is `b`), but may never climb above
//!   the root;
//! - refused: NUL bytes, paths over [`MAX_PATH_BYTES`] or components over
//!   [`MAX_COMPONENT_BYTES`], backslashes, absolute paths, Windows drive or UNC
//!   prefixes, and `~` home expansion.

use std::fmt;

/// The longest accepted path, in bytes (Linux `PATH_MAX`).
pub const MAX_PATH_BYTES: usize = 4096;

/// The longest accepted path component, in bytes (Linux `NAME_MAX`).
pub const MAX_COMPONENT_BYTES: usize = 255;

/// A path inside the workspace, normalized lexically: no `.`, `..` or empty components.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct NormalizedPath {
    components: Vec<String>,
}

impl NormalizedPath {
    /// The path's components, from the root down; empty for the root itself.
    #[must_use]
    pub fn components(&self) -> &[String] {
        &self.components
    }

    /// Whether this is the workspace root itself.
    #[must_use]
    pub fn is_root(&self) -> bool {
        self.components.is_empty()
    }

    /// The components joined with `/` (`""` for the root), ready to join to the root.
    #[must_use]
    pub fn to_relative_string(&self) -> String {
        self.components.join("/")
    }
}

impl fmt::Display for NormalizedPath {
    /// Shows the path joined with `/`, or `.` for the root.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_root() {
            f.write_str(".")
        } else {
            f.write_str(&self.to_relative_string())
        }
    }
}

/// Why a path given to a workspace tool was refused. Each message says what is wrong
/// and what to give instead.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PathRuleError {
    /// The path contains a NUL byte.
    #[error("path contains a NUL byte; remove it and give a plain relative path")]
    NulByte,
    /// The path is longer than [`MAX_PATH_BYTES`].
    #[error("path is {len} bytes long, over the limit of {MAX_PATH_BYTES}; use a shorter path")]
    TooLong {
        /// The path's length in bytes.
        len: usize,
    },
    /// One component is longer than [`MAX_COMPONENT_BYTES`].
    #[error(
        "path component '{component}' is {len} bytes long, over the limit of \
         {MAX_COMPONENT_BYTES}; use a shorter name"
    )]
    ComponentTooLong {
        /// The component, cut to its first 40 chars.
        component: String,
        /// The component's length in bytes.
        len: usize,
    },
    /// The path contains a backslash.
    #[error(
        "path '{path}' contains a backslash, which is not a separator here; use '/' \
         between directories, e.g. 'src/main.rs'"
    )]
    Backslash {
        /// The path as given.
        path: String,
    },
    /// The path is absolute.
    #[error(
        "path '{path}' is absolute; give a path relative to the workspace root, e.g. \
         'notes/todo.md'"
    )]
    Absolute {
        /// The path as given.
        path: String,
    },
    /// The path starts with a Windows drive (`C:`) or UNC (`\\server`) prefix.
    #[error(
        "path '{path}' has a Windows drive or network prefix; give a path relative to \
         the workspace root, using '/' between directories"
    )]
    WindowsPrefix {
        /// The path as given.
        path: String,
    },
    /// The path starts with `~`, which would mean a home directory.
    #[error(
        "path '{path}' starts with '~', but home directories are outside the workspace; \
         give a path relative to the workspace root"
    )]
    HomeDirectory {
        /// The path as given.
        path: String,
    },
    /// A `..` climbs above the workspace root.
    #[error(
        "path '{path}' leaves the workspace through '..'; only paths inside the \
         workspace root are allowed"
    )]
    EscapesRoot {
        /// The path as given.
        path: String,
    },
}

/// Whether `input` starts with a Windows drive (`C:`) or a UNC prefix (`\\`, `//?/`).
fn has_windows_prefix(input: &str) -> bool {
    let bytes = input.as_bytes();
    let drive = bytes.len() >= 2 && bytes[0].is_ascii_alphabetic() && bytes[1] == b':';
    drive || input.starts_with("\\\\")
}

/// Checks a workspace-relative path lexically and normalizes it (see the module docs).
///
/// # Errors
/// A [`PathRuleError`] saying what is wrong with the path and what to give instead.
///
/// ```
/// use smallebot_core::rules::workspace_path::check_relative_path;
/// assert_eq!(check_relative_path("a/./b//c/").unwrap().to_relative_string(), "a/b/c");
/// assert!(check_relative_path("../etc/passwd").is_err());
/// ```
pub fn check_relative_path(input: &str) -> Result<NormalizedPath, PathRuleError> {
    let path = || input.to_owned();
    if input.contains('\0') {
        return Err(PathRuleError::NulByte);
    }
    if input.len() > MAX_PATH_BYTES {
        return Err(PathRuleError::TooLong { len: input.len() });
    }
    if has_windows_prefix(input) {
        return Err(PathRuleError::WindowsPrefix { path: path() });
    }
    if input.contains('\\') {
        return Err(PathRuleError::Backslash { path: path() });
    }
    if input.starts_with('/') {
        return Err(PathRuleError::Absolute { path: path() });
    }
    if input.starts_with('~') {
        return Err(PathRuleError::HomeDirectory { path: path() });
    }
    let mut components: Vec<String> = Vec::new();
    for component in input.split('/') {
        match component {
            "" | "." => {}
            ".." => {
                if components.pop().is_none() {
                    return Err(PathRuleError::EscapesRoot { path: path() });
                }
            }
            name if name.len() > MAX_COMPONENT_BYTES => {
                return Err(PathRuleError::ComponentTooLong {
                    component: name.chars().take(40).collect(),
                    len: name.len(),
                });
            }
            name => components.push(name.to_owned()),
        }
    }
    Ok(NormalizedPath { components })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepted_paths_normalize() {
        // (input, normalized with '/', "" for the root)
        let cases: &[(&str, &str)] = &[
            ("", ""),
            (".", ""),
            ("./", ""),
            ("a", "a"),
            ("a/b/c", "a/b/c"),
            ("a/./b//c/", "a/b/c"),
            ("a/../b", "b"),
            ("a/b/../../c", "c"),
            ("a/..", ""),
            ("./notes/todo.md", "notes/todo.md"),
            ("dir with space/é漢.txt", "dir with space/é漢.txt"),
            ("a~b/c", "a~b/c"),
            ("...", "..."),
            ("..a/b..", "..a/b.."),
            ("a/C:/b", "a/C:/b"),
        ];
        for &(input, expected) in cases {
            let normalized = check_relative_path(input).unwrap();
            assert_eq!(normalized.to_relative_string(), expected, "{input:?}");
            assert_eq!(normalized.is_root(), expected.is_empty(), "{input:?}");
        }
    }

    #[test]
    fn refused_paths_say_why() {
        let long_component = "x".repeat(MAX_COMPONENT_BYTES + 1);
        let long_path = "a/".repeat(MAX_PATH_BYTES / 2 + 1);
        // (input, expected error kind as a matcher, a word the message must contain)
        type Check = fn(&PathRuleError) -> bool;
        let cases: &[(&str, Check, &str)] = &[
            ("a\0b", |e| matches!(e, PathRuleError::NulByte), "NUL"),
            (
                &long_path,
                |e| matches!(e, PathRuleError::TooLong { .. }),
                "4096",
            ),
            (
                &long_component,
                |e| matches!(e, PathRuleError::ComponentTooLong { .. }),
                "255",
            ),
            (
                "a\\b",
                |e| matches!(e, PathRuleError::Backslash { .. }),
                "'/'",
            ),
            (
                "/etc/passwd",
                |e| matches!(e, PathRuleError::Absolute { .. }),
                "relative",
            ),
            (
                "//server/share",
                |e| matches!(e, PathRuleError::Absolute { .. }),
                "absolute",
            ),
            (
                "C:\\Windows",
                |e| matches!(e, PathRuleError::WindowsPrefix { .. }),
                "Windows",
            ),
            (
                "C:/Windows",
                |e| matches!(e, PathRuleError::WindowsPrefix { .. }),
                "Windows",
            ),
            (
                "c:",
                |e| matches!(e, PathRuleError::WindowsPrefix { .. }),
                "drive",
            ),
            (
                "\\\\server\\share",
                |e| matches!(e, PathRuleError::WindowsPrefix { .. }),
                "network",
            ),
            (
                "~",
                |e| matches!(e, PathRuleError::HomeDirectory { .. }),
                "home",
            ),
            (
                "~/.ssh/id_rsa",
                |e| matches!(e, PathRuleError::HomeDirectory { .. }),
                "'~'",
            ),
            (
                "~root",
                |e| matches!(e, PathRuleError::HomeDirectory { .. }),
                "home",
            ),
            (
                "..",
                |e| matches!(e, PathRuleError::EscapesRoot { .. }),
                "'..'",
            ),
            (
                "../../etc/passwd",
                |e| matches!(e, PathRuleError::EscapesRoot { .. }),
                "leaves",
            ),
            (
                "a/../../x",
                |e| matches!(e, PathRuleError::EscapesRoot { .. }),
                "workspace",
            ),
            (
                "./..",
                |e| matches!(e, PathRuleError::EscapesRoot { .. }),
                "'..'",
            ),
            (
                "a/b/../../../workspace2",
                |e| matches!(e, PathRuleError::EscapesRoot { .. }),
                "..",
            ),
        ];
        for (input, check, needle) in cases {
            let error = check_relative_path(input).unwrap_err();
            assert!(check(&error), "{input:?} gave {error:?}");
            assert!(error.to_string().contains(needle), "{input:?}: {error}");
        }
    }

    #[test]
    fn long_component_error_shows_a_short_prefix() {
        let name = "é".repeat(200); // 400 bytes
        let error = check_relative_path(&name).unwrap_err();
        assert_eq!(
            error,
            PathRuleError::ComponentTooLong {
                component: "é".repeat(40),
                len: 400
            }
        );
    }

    #[test]
    fn display_shows_dot_for_root() {
        assert_eq!(check_relative_path("").unwrap().to_string(), ".");
        assert_eq!(check_relative_path("a//b").unwrap().to_string(), "a/b");
        assert_eq!(
            check_relative_path("x/y").unwrap().components(),
            ["x".to_owned(), "y".to_owned()]
        );
    }
}
