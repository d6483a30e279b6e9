//! Checkpoints of the workspace: how a path's states before and after a tool call
//! become the changes a turn lists, and what restoring a change would do to the file
//! that is there now.
//!
//! A path's state is what its content hashed to (`Some` with its SHA-256 and size) or
//! that nothing was there (`None`). Classification pairs a deleted path with a created
//! one of the same content as a rename; restoring compares the content there now with
//! what the turn left: anything else is a conflict, left alone unless forced.

use std::collections::BTreeMap;

/// A regular file's content, as a checkpoint knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    /// The SHA-256 of its content, 64 lowercase hex digits.
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
}

/// What happened to a path during a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// Nothing was there; a file is now.
    Created,
    /// A file was there and its content changed.
    Modified,
    /// A file was there; nothing is now.
    Deleted,
    /// A file moved: its old path is gone and a new path has the same content.
    Renamed,
}

impl ChangeKind {
    /// The stored word.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Created => "created",
            Self::Modified => "modified",
            Self::Deleted => "deleted",
            Self::Renamed => "renamed",
        }
    }

    /// The kind of a stored word.
    #[must_use]
    pub fn parse(word: &str) -> Option<Self> {
        match word {
            "created" => Some(Self::Created),
            "modified" => Some(Self::Modified),
            "deleted" => Some(Self::Deleted),
            "renamed" => Some(Self::Renamed),
            _ => None,
        }
    }
}

/// One change of a turn. For a rename `path` is the new path and `from` the old one;
/// `before` is the old path's state, `after` the new path's.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// The path, relative to the workspace (the new path of a rename).
    pub path: String,
    /// The old path of a rename.
    pub from: Option<String>,
    /// What happened.
    pub kind: ChangeKind,
    /// The state before (`None`: nothing was there).
    pub before: Option<FileState>,
    /// The state after (`None`: nothing is there).
    pub after: Option<FileState>,
}

/// The changes between `before` and `after`, each a map of the paths that may have
/// changed to their state (`None`: absent). Paths whose state is the same on both
/// sides are not changes. A deleted path and a created path with the same content are
/// one rename (each deleted path pairs with at most one created path, in path order).
/// The result is in path order.
#[must_use]
pub fn classify(
    before: &BTreeMap<String, Option<FileState>>,
    after: &BTreeMap<String, Option<FileState>>,
) -> Vec<FileChange> {
    let state =
        |map: &BTreeMap<String, Option<FileState>>, path: &str| map.get(path).cloned().flatten();
    let mut paths: Vec<&String> = before.keys().chain(after.keys()).collect();
    paths.sort();
    paths.dedup();
    let mut created = Vec::new();
    let mut deleted = Vec::new();
    let mut changes = Vec::new();
    for path in paths {
        match (state(before, path), state(after, path)) {
            (None, Some(now)) => created.push((path.clone(), now)),
            (Some(was), None) => deleted.push((path.clone(), was)),
            (Some(was), Some(now)) if was != now => changes.push(FileChange {
                path: path.clone(),
                from: None,
                kind: ChangeKind::Modified,
                before: Some(was),
                after: Some(now),
            }),
            _ => {}
        }
    }
    for (path, now) in created {
        let twin = deleted.iter().position(|(_, was)| *was == now);
        if let Some(index) = twin {
            let (from, was) = deleted.remove(index);
            changes.push(FileChange {
                path,
                from: Some(from),
                kind: ChangeKind::Renamed,
                before: Some(was),
                after: Some(now),
            });
        } else {
            changes.push(FileChange {
                path,
                from: None,
                kind: ChangeKind::Created,
                before: None,
                after: Some(now),
            });
        }
    }
    changes.extend(deleted.into_iter().map(|(path, was)| FileChange {
        path,
        from: None,
        kind: ChangeKind::Deleted,
        before: Some(was),
        after: None,
    }));
    changes.sort_by(|a, b| a.path.cmp(&b.path));
    changes
}

/// What restoring one path to its state before a turn does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RestoreStep {
    /// The path already has its state from before: nothing to do.
    Nothing,
    /// Write this content at the path.
    Write(FileState),
    /// Remove the file at the path.
    Remove,
    /// The content there now is not what the turn left: someone changed it since.
    /// Left alone unless forced, when it is `then`.
    Conflict {
        /// The step a forced restore takes.
        then: Box<RestoreStep>,
    },
}

/// The step that brings a path back to `wanted` (its state before the turn) when the
/// turn left it `left` and it is `current` now. A path whose current state is neither
/// what the turn left nor what is wanted is a conflict.
#[must_use]
pub fn restore_step(
    wanted: Option<&FileState>,
    left: Option<&FileState>,
    current: Option<&FileState>,
) -> RestoreStep {
    let step = match wanted {
        _ if current == wanted => return RestoreStep::Nothing,
        Some(state) => RestoreStep::Write(state.clone()),
        None => RestoreStep::Remove,
    };
    if current == left {
        step
    } else {
        RestoreStep::Conflict {
            then: Box::new(step),
        }
    }
}

/// Whether `sha256` is a SHA-256 digest in lowercase hex (64 digits), so it can name a
/// content file without reaching out of its folder.
#[must_use]
pub fn is_digest(sha256: &str) -> bool {
    sha256.len() == 64
        && sha256
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(tag: char) -> Option<FileState> {
        Some(FileState {
            sha256: tag.to_string().repeat(64),
            size: 1,
        })
    }

    fn map(items: &[(&str, Option<FileState>)]) -> BTreeMap<String, Option<FileState>> {
        items
            .iter()
            .map(|(p, s)| ((*p).to_owned(), s.clone()))
            .collect()
    }

    #[test]
    fn classify_table() {
        use ChangeKind::{Created, Deleted, Modified, Renamed};
        type Row<'a> = (
            Vec<(&'a str, Option<FileState>)>,
            Vec<(&'a str, Option<FileState>)>,
            Vec<(&'a str, ChangeKind, Option<&'a str>)>,
        );
        let rows: Vec<Row<'_>> = vec![
            (vec![], vec![], vec![]),
            (vec![("a", st('a'))], vec![("a", st('a'))], vec![]),
            (vec![("a", None)], vec![("a", None)], vec![]),
            (
                vec![("a", None)],
                vec![("a", st('a'))],
                vec![("a", Created, None)],
            ),
            (vec![], vec![("a", st('a'))], vec![("a", Created, None)]),
            (
                vec![("a", st('a'))],
                vec![("a", st('b'))],
                vec![("a", Modified, None)],
            ),
            (
                vec![("a", st('a'))],
                vec![("a", None)],
                vec![("a", Deleted, None)],
            ),
            (
                vec![("d", st('d')), ("e", None)],
                vec![("d", None), ("e", st('d'))],
                vec![("e", Renamed, Some("d"))],
            ),
            // Different content: a deletion and a creation, not a rename.
            (
                vec![("d", st('d')), ("e", None)],
                vec![("d", None), ("e", st('x'))],
                vec![("d", Deleted, None), ("e", Created, None)],
            ),
            // Two copies of one content created, one deleted: one rename, one creation.
            (
                vec![("a", st('a')), ("b", None), ("c", None)],
                vec![("a", None), ("b", st('a')), ("c", st('a'))],
                vec![("b", Renamed, Some("a")), ("c", Created, None)],
            ),
        ];
        for (before, after, want) in rows {
            let got: Vec<(String, ChangeKind, Option<String>)> =
                classify(&map(&before), &map(&after))
                    .into_iter()
                    .map(|c| (c.path, c.kind, c.from))
                    .collect();
            let want: Vec<(String, ChangeKind, Option<String>)> = want
                .iter()
                .map(|(p, k, f)| ((*p).to_owned(), *k, f.map(str::to_owned)))
                .collect();
            assert_eq!(got, want, "before {before:?} after {after:?}");
        }
    }

    #[test]
    fn restore_step_table() {
        let (a, b, c) = (st('a'), st('b'), st('c'));
        let write =
            |s: &Option<FileState>| RestoreStep::Write(s.clone().unwrap_or_else(|| unreachable!()));
        let conflict = |then| RestoreStep::Conflict {
            then: Box::new(then),
        };
        // (wanted, left, current, step)
        let rows = vec![
            (a.clone(), b.clone(), b.clone(), write(&a)),
            (None, a.clone(), a.clone(), RestoreStep::Remove),
            (a.clone(), None, None, write(&a)),
            (a.clone(), b.clone(), a.clone(), RestoreStep::Nothing),
            (None, a.clone(), None, RestoreStep::Nothing),
            (a.clone(), b.clone(), c.clone(), conflict(write(&a))),
            (a.clone(), None, c.clone(), conflict(write(&a))),
            (None, a.clone(), c.clone(), conflict(RestoreStep::Remove)),
            (a.clone(), b.clone(), None, conflict(write(&a))),
        ];
        for (wanted, left, current, want) in rows {
            assert_eq!(
                restore_step(wanted.as_ref(), left.as_ref(), current.as_ref()),
                want,
                "wanted {wanted:?} left {left:?} current {current:?}"
            );
        }
    }

    #[test]
    fn kind_words_round_trip() {
        for kind in [
            ChangeKind::Created,
            ChangeKind::Modified,
            ChangeKind::Deleted,
            ChangeKind::Renamed,
        ] {
            assert_eq!(ChangeKind::parse(kind.as_str()), Some(kind));
        }
        assert_eq!(ChangeKind::parse("moved"), None);
    }

    #[test]
    fn digests() {
        assert!(is_digest(&"0a".repeat(32)));
        for bad in [
            "",
            "../etc",
            &"A".repeat(64),
            &"0".repeat(63),
            &"g".repeat(64),
        ] {
            assert!(!is_digest(bad), "{bad}");
        }
    }
}
