//! Where a run's home is: given, found above the working directory as git finds a
//! repository, or per user.

use std::path::{Path, PathBuf};

/// The directory name of a project's own home.
pub const PROJECT_HOME: &str = ".agents";

/// The home of a run, found as git finds a repository: `--home` (or `SMALLEBOT_HOME`)
/// when given (a relative one taken from `cwd`, so that every path derived from the
/// home — the workspace a hook starts in, the paths it is told — is absolute); else the nearest `.agents` directory in `cwd` or a parent of it, up to
/// the filesystem root but not above a repository root (a directory holding `.git`);
/// else `.smallebot` in the user's home directory (`user_home`, from `$HOME`); else
/// `cwd/.agents`. `is_dir` and `exists` ask the file system (tests pass fakes).
pub fn resolve_home(
    given: Option<PathBuf>,
    cwd: &Path,
    user_home: Option<PathBuf>,
    is_dir: impl Fn(&Path) -> bool,
    exists: impl Fn(&Path) -> bool,
) -> PathBuf {
    if let Some(given) = given {
        return cwd.join(given);
    }
    for dir in cwd.ancestors() {
        let candidate = dir.join(PROJECT_HOME);
        if is_dir(&candidate) {
            return candidate;
        }
        if exists(&dir.join(".git")) {
            break;
        }
    }
    match user_home {
        Some(user_home) if !user_home.as_os_str().is_empty() => user_home.join(".smallebot"),
        _ => cwd.join(PROJECT_HOME),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (given, cwd, $HOME, the .agents directories, the .git entries, expected)
    type Case<'a> = (
        Option<PathBuf>,
        &'a str,
        Option<PathBuf>,
        &'a [&'a str],
        &'a [&'a str],
        &'a str,
    );

    #[test]
    fn the_home_is_given_found_above_or_per_user() {
        let some = |p: &str| Some(PathBuf::from(p));
        let cases: &[Case] = &[
            (some("/h"), "/p", some("/u"), &["/p/.agents"], &[], "/h"),
            (some("/h"), "/p", None, &[], &[], "/h"),
            // A relative one is taken from the working directory.
            (
                some("home"),
                "/p",
                some("/u"),
                &["/p/.agents"],
                &[],
                "/p/home",
            ),
            (some("../h"), "/p/q", None, &[], &[], "/p/q/../h"),
            (None, "/p", some("/u"), &["/p/.agents"], &[], "/p/.agents"),
            // Found from a subdirectory, the nearest first.
            (
                None,
                "/p/sub/deep",
                some("/u"),
                &["/p/.agents"],
                &[],
                "/p/.agents",
            ),
            (
                None,
                "/p/sub",
                some("/u"),
                &["/p/.agents", "/p/sub/.agents"],
                &[],
                "/p/sub/.agents",
            ),
            // The repository root is the last directory looked at.
            (
                None,
                "/p/repo/sub",
                some("/u"),
                &["/p/.agents"],
                &["/p/repo/.git"],
                "/u/.smallebot",
            ),
            (
                None,
                "/p/repo/sub",
                some("/u"),
                &["/p/repo/.agents"],
                &["/p/repo/.git"],
                "/p/repo/.agents",
            ),
            (None, "/p", some("/u"), &[], &[], "/u/.smallebot"),
            (None, "/p", some(""), &[], &[], "/p/.agents"),
            (None, "/p", None, &[], &[], "/p/.agents"),
        ];
        for (given, cwd, user, dirs, gits, expected) in cases {
            let got = resolve_home(
                given.clone(),
                Path::new(cwd),
                user.clone(),
                |p| dirs.iter().any(|d| Path::new(d) == p),
                |p| gits.iter().any(|g| Path::new(g) == p),
            );
            assert_eq!(
                got,
                PathBuf::from(expected),
                "{given:?} {cwd} {user:?} {dirs:?} {gits:?}"
            );
        }
    }
}
