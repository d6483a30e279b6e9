//! Copying a home's files for a backup and back: regular files and folders only, a
//! link never followed (it is listed as skipped), a writer's temporary files left out.

use std::path::Path;

use crate::error::StoreError;

/// A temporary folder beside `dest` (its parent created if missing) to write a backup
/// into before it is renamed to `dest`; removed when dropped unless kept.
pub(super) fn staging_folder(dest: &Path) -> Result<tempfile::TempDir, StoreError> {
    let parent = dest
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or_else(|| Path::new("."));
    std::fs::create_dir_all(parent).map_err(|source| StoreError::Io {
        action: "cannot create the folder of the backup",
        path: parent.to_path_buf(),
        source,
    })?;
    let name = dest
        .file_name()
        .map_or_else(|| "backup".to_owned(), |n| n.to_string_lossy().into_owned());
    tempfile::Builder::new()
        .prefix(&format!(".{name}.partial-"))
        .tempdir_in(parent)
        .map_err(|source| StoreError::Io {
            action: "cannot create a folder to write the backup in, in",
            path: parent.to_path_buf(),
            source,
        })
}

/// Whether `name` is a writer's temporary file (a task list or attachment content
/// being written), never data of its own.
fn is_temporary(name: &str) -> bool {
    name.starts_with('.') && (name.contains(".tmp-") || name.starts_with(".upload-"))
}

/// Creates the folder `path` is in, if missing.
fn create_parent(path: &Path) -> Result<(), StoreError> {
    match path.parent() {
        Some(parent) => std::fs::create_dir_all(parent).map_err(|source| StoreError::Io {
            action: "cannot create the folder",
            path: parent.to_path_buf(),
            source,
        }),
        None => Ok(()),
    }
}

/// Copies the file `from` to `to`, creating `to`'s folder.
pub(super) fn copy_file(from: &Path, to: &Path) -> Result<(), StoreError> {
    create_parent(to)?;
    std::fs::copy(from, to).map_err(|source| StoreError::Io {
        action: "cannot copy",
        path: from.to_path_buf(),
        source,
    })?;
    Ok(())
}

/// Copies the file or folder `from` to `to` (nothing when `from` does not exist):
/// regular files and folders; a link or anything else is added to `skipped` with why.
/// Returns how many files were copied.
pub(super) fn copy_tree(
    from: &Path,
    to: &Path,
    skipped: &mut Vec<String>,
) -> Result<usize, StoreError> {
    let meta = match from.symlink_metadata() {
        Ok(meta) => meta,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(0),
        Err(source) => {
            return Err(StoreError::Io {
                action: "cannot read",
                path: from.to_path_buf(),
                source,
            });
        }
    };
    if meta.file_type().is_symlink() {
        skipped.push(format!("{}: a link (never followed)", from.display()));
        return Ok(0);
    }
    if meta.is_file() {
        copy_file(from, to)?;
        return Ok(1);
    }
    if !meta.is_dir() {
        skipped.push(format!("{}: not a file or a folder", from.display()));
        return Ok(0);
    }
    std::fs::create_dir_all(to).map_err(|source| StoreError::Io {
        action: "cannot create the folder",
        path: to.to_path_buf(),
        source,
    })?;
    let entries = std::fs::read_dir(from).map_err(|source| StoreError::Io {
        action: "cannot list",
        path: from.to_path_buf(),
        source,
    })?;
    let mut copied = 0;
    for entry in entries {
        let entry = entry.map_err(|source| StoreError::Io {
            action: "cannot list",
            path: from.to_path_buf(),
            source,
        })?;
        let name = entry.file_name();
        if is_temporary(&name.to_string_lossy()) {
            continue;
        }
        copied += copy_tree(&entry.path(), &to.join(&name), skipped)?;
    }
    Ok(copied)
}

/// The names of the folders in `dir` (none when it does not exist), sorted; links
/// are not folders here.
pub(super) fn folders_in(dir: &Path) -> Result<Vec<std::path::PathBuf>, StoreError> {
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(source) => {
            return Err(StoreError::Io {
                action: "cannot list",
                path: dir.to_path_buf(),
                source,
            });
        }
    };
    let mut names = Vec::new();
    for entry in entries {
        let entry = entry.map_err(|source| StoreError::Io {
            action: "cannot list",
            path: dir.to_path_buf(),
            source,
        })?;
        if entry.file_type().is_ok_and(|t| t.is_dir()) {
            names.push(std::path::PathBuf::from(entry.file_name()));
        }
    }
    names.sort();
    Ok(names)
}

/// Moves `from` (a file or folder) to `to` when it exists, creating `to`'s folder.
/// Returns whether anything was moved.
pub(super) fn move_aside(from: &Path, to: &Path) -> Result<bool, StoreError> {
    if from.symlink_metadata().is_err() {
        return Ok(false);
    }
    create_parent(to)?;
    std::fs::rename(from, to).map_err(|source| StoreError::Io {
        action: "cannot move aside",
        path: from.to_path_buf(),
        source,
    })?;
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn temporaries_are_the_writers_own_names_only() {
        let cases = [
            (".0193.json.tmp-12-3", true),
            (".upload-abc", true),
            ("0193.json", false),
            (".gitignore", false),
            ("a.tmp-1", false),
        ];
        for (name, temporary) in cases {
            assert_eq!(is_temporary(name), temporary, "{name}");
        }
    }

    #[cfg(unix)]
    #[test]
    fn a_tree_is_copied_without_following_links_or_temporaries() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("from");
        std::fs::create_dir_all(from.join("sub")).unwrap();
        std::fs::write(from.join("a.json"), "a").unwrap();
        std::fs::write(from.join("sub/b.md"), "b").unwrap();
        std::fs::write(from.join(".a.json.tmp-1-1"), "half").unwrap();
        std::fs::write(dir.path().join("secret"), "s").unwrap();
        std::os::unix::fs::symlink(dir.path().join("secret"), from.join("link")).unwrap();
        let mut skipped = Vec::new();
        let to = dir.path().join("to");
        assert_eq!(copy_tree(&from, &to, &mut skipped).unwrap(), 2);
        assert_eq!(std::fs::read_to_string(to.join("sub/b.md")).unwrap(), "b");
        assert!(!to.join("link").exists() && !to.join(".a.json.tmp-1-1").exists());
        assert_eq!(skipped.len(), 1, "{skipped:?}");
        assert!(
            skipped[0].ends_with("link: a link (never followed)"),
            "{skipped:?}"
        );
        assert_eq!(
            copy_tree(&dir.path().join("none"), &to, &mut skipped).unwrap(),
            0
        );
    }
}
