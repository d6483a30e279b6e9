//! Tab completion of file paths after `@` and `/attach ` (see
//! [`smallebot_core::rules::mentions::path_being_typed`]): the entries of the directory
//! typed so far (relative to the working directory) whose names start with the rest;
//! directories end with `/` so that the next Tab goes on inside them.

use std::path::Path;

use smallebot_core::rules::pasted_path::expand_home;

/// A completion of a path: the whole path typed so far with the entry's name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PathCompletion {
    /// `src/main.rs`, `docs/`.
    pub(super) value: String,
    /// Whether it is a directory (the path goes on).
    pub(super) directory: bool,
}

/// The completions of `partial` (a path as typed) from `base`, sorted by name. Hidden
/// entries only when the name typed starts with a dot; names with whitespace left out
/// (an `@` mention ends at whitespace; `/attach` takes such a name quoted); none when
/// the directory cannot be read. A leading `~/` is `home`'s directory and stays as typed
/// in the completions.
pub(super) fn complete_path(partial: &str, base: &Path, home: Option<&str>) -> Vec<PathCompletion> {
    let (dir, prefix) = match partial.rfind('/') {
        Some(at) => partial.split_at(at + 1),
        None => ("", partial),
    };
    let Ok(entries) = std::fs::read_dir(base.join(expand_home(dir, home))) else {
        return Vec::new();
    };
    let mut found: Vec<PathCompletion> = entries
        .filter_map(Result::ok)
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let shown = name.starts_with(prefix)
                && (prefix.starts_with('.') || !name.starts_with('.'))
                && !name.contains(char::is_whitespace);
            // A symbolic link to a directory is a directory here.
            let directory = entry.path().is_dir();
            shown.then(|| PathCompletion {
                value: format!("{dir}{name}{}", if directory { "/" } else { "" }),
                directory,
            })
        })
        .collect();
    found.sort_by(|a, b| a.value.cmp(&b.value));
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_complete_from_the_base_with_directories_marked() {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path();
        std::fs::create_dir_all(base.join("docs/guide")).unwrap();
        std::fs::write(base.join("docs/notes.txt"), "x").unwrap();
        std::fs::write(base.join("docs/news.md"), "x").unwrap();
        std::fs::write(base.join(".hidden"), "x").unwrap();
        std::fs::write(base.join("data.csv"), "x").unwrap();
        std::fs::write(base.join("docs/new file.txt"), "x").unwrap();
        let values = |partial: &str| -> Vec<String> {
            complete_path(partial, base, None)
                .into_iter()
                .map(|c| c.value)
                .collect()
        };
        assert_eq!(values("do"), ["docs/"]);
        assert_eq!(values("d"), ["data.csv", "docs/"]);
        assert_eq!(values("docs/n"), ["docs/news.md", "docs/notes.txt"]);
        assert_eq!(values("docs/g"), ["docs/guide/"]);
        assert_eq!(values(""), ["data.csv", "docs/"]);
        assert_eq!(values(".h"), [".hidden"]);
        assert!(values("nowhere/x").is_empty());
        let absolute = format!("{}/docs/no", base.display());
        assert_eq!(
            values(&absolute),
            [format!("{}/docs/notes.txt", base.display())]
        );
        assert!(!complete_path("data", base, None)[0].directory);
        // `~/` lists the home directory and stays `~/` in what is completed.
        let home = base.join("docs");
        let in_home = complete_path("~/n", Path::new("/"), home.to_str());
        let in_home: Vec<&str> = in_home.iter().map(|c| c.value.as_str()).collect();
        assert_eq!(in_home, ["~/news.md", "~/notes.txt"]);
        assert!(complete_path("~/n", base, None).is_empty());
    }
}
