//! Which state each path goes back to when one or more turns are undone.

use std::collections::BTreeMap;

use smallebot_core::rules::checkpoint::{ChangeKind, FileChange, FileState};

/// One path to bring back: to `wanted` (its state before the first undone turn) from
/// `left` (what the last undone turn left there).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RestoreTarget {
    /// The path, relative to the workspace.
    pub path: String,
    /// The state to bring back (`None`: no file).
    pub wanted: Option<FileState>,
    /// What the turns left (`None`: no file).
    pub left: Option<FileState>,
}

/// The targets that undo `turns`, given oldest first: a rename is its old path
/// (wanted back, left absent) and its new path (wanted absent, left with the content).
/// For a path several turns changed, the oldest turn's state before and the newest
/// turn's state after. In path order.
#[must_use]
pub fn targets(turns: &[&[FileChange]]) -> Vec<RestoreTarget> {
    let mut by_path: BTreeMap<String, RestoreTarget> = BTreeMap::new();
    let mut note = |path: &str, was: Option<FileState>, now: Option<FileState>| {
        by_path
            .entry(path.to_owned())
            .and_modify(|target| target.left = now.clone())
            .or_insert_with(|| RestoreTarget {
                path: path.to_owned(),
                wanted: was,
                left: now,
            });
    };
    for change in turns.iter().flat_map(|turn| turn.iter()) {
        match (change.kind, &change.from) {
            (ChangeKind::Renamed, Some(from)) => {
                note(from, change.before.clone(), None);
                note(&change.path, None, change.after.clone());
            }
            _ => note(&change.path, change.before.clone(), change.after.clone()),
        }
    }
    by_path.into_values().collect()
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

    fn change(
        path: &str,
        from: Option<&str>,
        kind: ChangeKind,
        before: Option<FileState>,
        after: Option<FileState>,
    ) -> FileChange {
        FileChange {
            path: path.to_owned(),
            from: from.map(str::to_owned),
            kind,
            before,
            after,
        }
    }

    #[test]
    fn targets_table() {
        use ChangeKind::{Created, Deleted, Modified, Renamed};
        let one = [
            change("a", None, Created, None, st('a')),
            change("c", None, Deleted, st('c'), None),
            change("e", Some("d"), Renamed, st('d'), st('d')),
        ];
        let two = [
            change("a", None, Modified, st('a'), st('b')),
            change("c", None, Created, None, st('x')),
        ];
        type Want<'a> = Vec<(&'a str, Option<FileState>, Option<FileState>)>;
        let rows: Vec<(Vec<&[FileChange]>, Want<'_>)> = vec![
            (vec![], vec![]),
            (
                vec![&one],
                vec![
                    ("a", None, st('a')),
                    ("c", st('c'), None),
                    ("d", st('d'), None),
                    ("e", None, st('d')),
                ],
            ),
            (
                vec![&one, &two],
                vec![
                    ("a", None, st('b')),
                    ("c", st('c'), st('x')),
                    ("d", st('d'), None),
                    ("e", None, st('d')),
                ],
            ),
            (
                vec![&two],
                vec![("a", st('a'), st('b')), ("c", None, st('x'))],
            ),
        ];
        for (turns, want) in rows {
            let got: Vec<(String, Option<FileState>, Option<FileState>)> = targets(&turns)
                .into_iter()
                .map(|t| (t.path, t.wanted, t.left))
                .collect();
            let want: Vec<(String, Option<FileState>, Option<FileState>)> = want
                .into_iter()
                .map(|(p, w, l)| (p.to_owned(), w, l))
                .collect();
            assert_eq!(got, want);
        }
    }
}
