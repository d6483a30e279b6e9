//! What a command leaves while it runs — its private temporary folder
//! (`smallebot-cmd-<pid>-…` in the system's temporary directory) and its pids control
//! group (`smallebot-<pid>-…`) — is named after the host process that made it. A host
//! that exits normally removes both; one that was killed cannot, so each start sweeps
//! the leftovers of host processes that no longer exist.

use std::path::Path;

/// Removes what commands of host processes that no longer exist left behind (a host
/// killed while a command ran): their private temporary folders in the system's
/// temporary directory and their pids control groups, killing what still runs in
/// those. `alive` tells whether a process id on this host still exists. Call once at
/// start; returns how many were found.
pub fn sweep_leftovers(alive: impl Fn(u32) -> bool) -> usize {
    let folders = sweep_temp_folders(&std::env::temp_dir(), &alive);
    #[cfg(target_os = "linux")]
    let groups = super::cgroup::own_pids_group().map_or(0, |parent| sweep_groups(&parent, &alive));
    #[cfg(not(target_os = "linux"))]
    let groups = 0;
    folders + groups
}

/// The prefix of a command's private temporary folder; the owning pid and a `-`
/// follow.
pub(crate) const TEMP_PREFIX: &str = "smallebot-cmd-";

/// The pid a leftover named `name` belongs to: `<prefix><pid>-<anything>`.
pub(crate) fn owner_pid(name: &str, prefix: &str) -> Option<u32> {
    let (pid, rest) = name.strip_prefix(prefix)?.split_once('-')?;
    if rest.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    pid.parse().ok()
}

/// The entries of `dir` named `<prefix><pid>-…` whose pid `alive` says is gone.
fn dead_entries(dir: &Path, prefix: &str, alive: &dyn Fn(u32) -> bool) -> Vec<std::path::PathBuf> {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Vec::new();
    };
    entries
        .filter_map(Result::ok)
        .filter(|entry| {
            entry
                .file_name()
                .to_str()
                .and_then(|name| owner_pid(name, prefix))
                .is_some_and(|pid| pid != std::process::id() && !alive(pid))
        })
        .map(|entry| entry.path())
        .collect()
}

/// Removes the temporary folders in `temp_dir` of host processes `alive` says are
/// gone (folders of other users stay: they cannot be removed); returns how many went.
pub(crate) fn sweep_temp_folders(temp_dir: &Path, alive: &dyn Fn(u32) -> bool) -> usize {
    dead_entries(temp_dir, TEMP_PREFIX, alive)
        .into_iter()
        .filter(|path| {
            // Only a real folder: a link is never followed out of the temporary directory.
            std::fs::symlink_metadata(path).is_ok_and(|m| m.is_dir())
                && std::fs::remove_dir_all(path).is_ok()
        })
        .count()
}

/// Empties (killing what still runs in them) and removes the control groups in
/// `parent` of host processes `alive` says are gone; returns how many were found.
#[cfg(target_os = "linux")]
pub(crate) fn sweep_groups(parent: &Path, alive: &dyn Fn(u32) -> bool) -> usize {
    let dead = dead_entries(parent, super::cgroup::GROUP_PREFIX, alive);
    let found = dead.len();
    for dir in dead {
        // Dropping it kills what is left in it and removes it.
        drop(super::cgroup::PidsGroup::adopt(dir));
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_owner_is_read_from_the_name() {
        let cases = [
            ("smallebot-cmd-4711-abc", TEMP_PREFIX, Some(4711)),
            ("smallebot-cmd-4711-", TEMP_PREFIX, None),
            ("smallebot-cmd-abc", TEMP_PREFIX, None),
            ("smallebot-cmd-47x1-abc", TEMP_PREFIX, None),
            ("smallebot-cmd-+47-abc", TEMP_PREFIX, None),
            ("other-4711-abc", TEMP_PREFIX, None),
            ("smallebot-12-00ff00ff00ff00ff", "smallebot-", Some(12)),
            ("smallebot-cmd-12-x", "smallebot-", None),
            ("smallebot-99999999999-x", "smallebot-", None),
        ];
        for (name, prefix, pid) in cases {
            assert_eq!(owner_pid(name, prefix), pid, "{name}");
        }
    }

    #[test]
    fn only_folders_of_gone_processes_are_swept() {
        let temp = tempfile::tempdir().unwrap();
        let dead = temp.path().join("smallebot-cmd-1000001-aaaa");
        let live = temp.path().join("smallebot-cmd-1000002-bbbb");
        let mine = temp
            .path()
            .join(format!("{TEMP_PREFIX}{}-cccc", std::process::id()));
        let unnamed = temp.path().join("smallebot-cmd-dddd");
        for dir in [&dead, &live, &mine, &unnamed] {
            std::fs::create_dir(dir).unwrap();
            std::fs::write(dir.join("file"), "x").unwrap();
        }
        let swept = sweep_temp_folders(temp.path(), &|pid| pid == 1_000_002);
        assert_eq!(swept, 1);
        assert!(!dead.exists());
        assert!(live.exists() && mine.exists() && unnamed.exists());
    }
}
