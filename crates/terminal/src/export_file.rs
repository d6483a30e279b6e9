//! Writing an export to a file a person names (`conversations export --output`, the
//! chat's `/export`): written whole to a temporary file beside it, then put in place by
//! a rename — refused when the file exists unless replacing was asked for — so that the
//! file is never half written and an existing one is never replaced by surprise.

use std::io::Write as _;
use std::path::{Path, PathBuf};

use crate::user_path::shown;

/// Why an export was not written; nothing was left behind.
#[derive(Debug, thiserror::Error)]
pub enum ExportFileError {
    /// The file exists and replacing it was not asked for.
    #[error("{} exists already and was left as it is", shown(.0))]
    Exists(PathBuf),
    /// The directory it would go in does not exist.
    #[error(
        "cannot write {}: the directory {} does not exist. Create it first, or give \
         another path.",
        shown(.path),
        shown(.directory)
    )]
    NoDirectory {
        /// The file asked for.
        path: PathBuf,
        /// Its directory.
        directory: PathBuf,
    },
    /// Creating, writing or renaming failed.
    #[error("cannot write {}: {source}", shown(.path))]
    Io {
        /// The file asked for.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
}

/// Writes `text` to `path`: to a new temporary file in its directory first, then
/// renamed to `path` — over an existing file only when `replace`, else the rename
/// itself refuses an existing one (no window between a check and the write).
///
/// # Errors
/// [`ExportFileError::Exists`] (without `replace`), [`ExportFileError::NoDirectory`],
/// [`ExportFileError::Io`].
pub fn write_export(path: &Path, text: &str, replace: bool) -> Result<(), ExportFileError> {
    let io = |source| ExportFileError::Io {
        path: path.to_path_buf(),
        source,
    };
    let directory = match path.parent() {
        Some(parent) if !parent.as_os_str().is_empty() => parent,
        _ => Path::new("."),
    };
    if !directory.is_dir() {
        return Err(ExportFileError::NoDirectory {
            path: path.to_path_buf(),
            directory: directory.to_path_buf(),
        });
    }
    if !replace && path.symlink_metadata().is_ok() {
        return Err(ExportFileError::Exists(path.to_path_buf()));
    }
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    // Created as any new file is (0666 less the umask), not tempfile's private 0600.
    let mut temporary = tempfile::Builder::new()
        .prefix(&format!(".{name}."))
        .suffix(".tmp")
        .permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666))
        .tempfile_in(directory)
        .map_err(io)?;
    temporary
        .write_all(text.as_bytes())
        .and_then(|()| temporary.as_file().sync_all())
        .map_err(io)?;
    let placed = if replace {
        temporary.persist(path)
    } else {
        temporary.persist_noclobber(path)
    };
    placed
        .map(drop)
        .map_err(|failed| match failed.error.kind() {
            std::io::ErrorKind::AlreadyExists => ExportFileError::Exists(path.to_path_buf()),
            _ => io(failed.error),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entries(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn an_export_is_written_whole_and_replaces_only_when_asked() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.md");
        write_export(&path, "first", false).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        let refused = write_export(&path, "second", false).unwrap_err();
        assert!(matches!(refused, ExportFileError::Exists(_)), "{refused}");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "first");
        write_export(&path, "third", true).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "third");
        assert_eq!(entries(dir.path()), ["out.md"], "no temporary file left");
        // A link in the way is not followed: it is refused, or replaced itself.
        let target = dir.path().join("target.txt");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.path().join("link.md");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        assert!(matches!(
            write_export(&link, "x", false),
            Err(ExportFileError::Exists(_))
        ));
        write_export(&link, "x", true).unwrap();
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert_eq!(std::fs::read_to_string(&link).unwrap(), "x");
    }

    #[test]
    fn a_missing_directory_is_named() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("nowhere/out.md");
        let refused = write_export(&path, "x", false).unwrap_err().to_string();
        assert_eq!(
            refused,
            format!(
                "cannot write {}: the directory {} does not exist. Create it first, or give \
                 another path.",
                path.display(),
                dir.path().join("nowhere").display()
            )
        );
    }
}
