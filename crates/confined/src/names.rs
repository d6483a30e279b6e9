//! A path beneath the root as plain names: checked lexically before anything is
//! touched, so that `..`, absolute paths and prefixes never reach the system.

use std::ffi::{OsStr, OsString};
use std::path::{Component, Path};

use crate::error::ConfinedError;

/// A relative path made of plain names (`.` components dropped); empty for the root.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Names {
    parts: Vec<OsString>,
}

impl Names {
    /// The names of `path`.
    ///
    /// # Errors
    /// [`ConfinedError::NotRelative`] for an absolute path or one holding `..`.
    pub(crate) fn parse(path: &Path) -> Result<Self, ConfinedError> {
        let mut parts = Vec::new();
        for component in path.components() {
            match component {
                Component::Normal(name) => parts.push(name.to_os_string()),
                Component::CurDir => {}
                Component::ParentDir | Component::RootDir | Component::Prefix(_) => {
                    return Err(ConfinedError::NotRelative {
                        path: path.to_string_lossy().into_owned(),
                    });
                }
            }
        }
        Ok(Self { parts })
    }

    /// The names.
    pub(crate) fn parts(&self) -> &[OsString] {
        &self.parts
    }

    /// The first `n` names.
    pub(crate) fn prefix(&self, n: usize) -> Self {
        Self {
            parts: self.parts[..n.min(self.parts.len())].to_vec(),
        }
    }

    /// The parent's names and the last name; `None` for the root.
    pub(crate) fn split_last(&self) -> Option<(Self, &OsStr)> {
        let (last, parent) = self.parts.split_last()?;
        Some((
            Self {
                parts: parent.to_vec(),
            },
            last.as_os_str(),
        ))
    }

    /// The names joined with `/` (`.` for the root), as the system is given them.
    pub(crate) fn joined(&self) -> OsString {
        if self.parts.is_empty() {
            return OsString::from(".");
        }
        let mut out = OsString::new();
        for (i, part) in self.parts.iter().enumerate() {
            if i > 0 {
                out.push("/");
            }
            out.push(part);
        }
        out
    }

    /// The path as shown in messages (`.` for the root).
    pub(crate) fn shown(&self) -> String {
        self.joined().to_string_lossy().into_owned()
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    #[test]
    fn only_plain_names_pass() {
        for (path, names) in [
            ("", vec![]),
            (".", vec![]),
            ("a", vec!["a"]),
            ("a/./b/", vec!["a", "b"]),
            ("a//b", vec!["a", "b"]),
        ] {
            let parsed = Names::parse(Path::new(path)).unwrap();
            let expected: Vec<OsString> = names.iter().map(OsString::from).collect();
            assert_eq!(parsed.parts(), expected.as_slice(), "{path}");
        }
        for path in ["/etc", "..", "a/../b", "a/.."] {
            let error = Names::parse(Path::new(path)).unwrap_err();
            assert!(matches!(error, ConfinedError::NotRelative { .. }), "{path}");
        }
        let names = Names::parse(Path::new("a/b/c")).unwrap();
        assert_eq!(names.shown(), "a/b/c");
        assert_eq!(names.prefix(2).shown(), "a/b");
        let (parent, last) = names.split_last().unwrap();
        assert_eq!((parent.shown().as_str(), last), ("a/b", OsStr::new("c")));
        assert_eq!(Names::parse(Path::new("")).unwrap().shown(), ".");
    }
}
