//! A pids control group per command: the kernel's count of its processes, capped
//! (`pids.max`), for root whom `RLIMIT_NPROC` does not bind. Made by the host before
//! the command starts, joined by the helper, emptied and removed when the command
//! ends. Works where the host may create groups (cgroup v1 `pids`, or the v2 root).

use std::path::{Path, PathBuf};
use std::time::Duration;

/// The prefix of a command's control group; the owning pid and a `-` follow (a later
/// start sweeps the groups of pids that are gone, `leftovers.rs`).
pub(crate) const GROUP_PREFIX: &str = "smallebot-";

/// A created group; dropping it kills what is left in it and removes it.
#[derive(Debug)]
pub(crate) struct PidsGroup {
    dir: PathBuf,
}

impl PidsGroup {
    /// This process's own group in the pids hierarchy, when a group can be made in
    /// it (one is made and removed at once); `None` without a pids controller or the
    /// right to make groups.
    pub(crate) fn parent() -> Option<PathBuf> {
        let parent = own_pids_group()?;
        Self::create(&parent, 64).map(|_| parent)
    }

    /// A new group in `parent` (from [`PidsGroup::parent`]), capped at `limit`
    /// processes; `None` when it cannot be made.
    pub(crate) fn create(parent: &Path, limit: u64) -> Option<Self> {
        // Unique without shared state: several sandboxes may live in one process.
        // Named after this process: a later start sweeps it if this one dies
        // (`leftovers.rs`).
        let name = format!(
            "{}{}-{:016x}",
            GROUP_PREFIX,
            std::process::id(),
            rand::random::<u64>()
        );
        let dir = parent.join(name);
        std::fs::create_dir(&dir).ok()?;
        let group = Self { dir };
        std::fs::write(group.dir.join("pids.max"), limit.to_string()).ok()?;
        Some(group)
    }

    /// The group at `dir`, made by a process that is gone: dropping it empties and
    /// removes it.
    pub(crate) fn adopt(dir: PathBuf) -> Self {
        Self { dir }
    }

    /// The group's directory.
    pub(crate) fn dir(&self) -> &Path {
        &self.dir
    }

    /// Sends SIGKILL to every process still in the group until it is empty (bounded).
    fn kill_all(&self) {
        for _ in 0..100 {
            let Ok(procs) = std::fs::read_to_string(self.dir.join("cgroup.procs")) else {
                return;
            };
            let pids: Vec<_> = procs
                .lines()
                .filter_map(|line| line.trim().parse::<i32>().ok())
                .filter_map(rustix::process::Pid::from_raw)
                .collect();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
            }
            std::thread::sleep(Duration::from_millis(2));
        }
    }
}

impl Drop for PidsGroup {
    fn drop(&mut self) {
        self.kill_all();
        for _ in 0..50 {
            if std::fs::remove_dir(&self.dir).is_ok() || !self.dir.exists() {
                return;
            }
            std::thread::sleep(Duration::from_millis(2));
        }
        tracing::warn!(group = %self.dir.display(), "could not remove a command's control group");
    }
}

/// This process's group in the hierarchy that has the pids controller.
pub(crate) fn own_pids_group() -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/self/mountinfo").ok()?;
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let (mount_point, version2) = pids_mount(&mounts)?;
    let own = own_path(&groups, version2)?;
    let dir = Path::new(&mount_point).join(own.trim_start_matches('/'));
    if version2 {
        let controllers = std::fs::read_to_string(dir.join("cgroup.controllers")).ok()?;
        if !controllers.split_whitespace().any(|c| c == "pids") {
            return None;
        }
        // Children get the controller only when the parent hands it down (possible in
        // a group without processes of its own, such as the root).
        std::fs::write(dir.join("cgroup.subtree_control"), "+pids").ok()?;
    }
    Some(dir)
}

/// The mount point of the pids hierarchy in a `/proc/self/mountinfo`, and whether it
/// is cgroup v2 (a v1 `pids` mount is preferred).
fn pids_mount(mountinfo: &str) -> Option<(String, bool)> {
    let mut v2 = None;
    for line in mountinfo.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        let Some(dash) = fields.iter().position(|f| *f == "-") else {
            continue;
        };
        let (Some(mount_point), Some(fs_type), Some(options)) =
            (fields.get(4), fields.get(dash + 1), fields.get(dash + 3))
        else {
            continue;
        };
        if *fs_type == "cgroup" && options.split(',').any(|o| o == "pids") {
            return Some(((*mount_point).to_owned(), false));
        }
        if *fs_type == "cgroup2" && v2.is_none() {
            v2 = Some(((*mount_point).to_owned(), true));
        }
    }
    v2
}

/// This process's path in the pids hierarchy, from `/proc/self/cgroup`.
fn own_path(cgroup: &str, version2: bool) -> Option<String> {
    cgroup.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let matches = if version2 {
            controllers.is_empty()
        } else {
            controllers.split(',').any(|c| c == "pids")
        };
        matches.then(|| path.to_owned())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTS_V1: &str = "\
30 25 0:26 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory
35 25 0:31 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids
37 25 0:33 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw";
    const MOUNTS_V2: &str = "\
25 1 0:22 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw,nsdelegate";

    #[test]
    fn the_pids_hierarchy_is_found() {
        assert_eq!(
            pids_mount(MOUNTS_V1),
            Some(("/sys/fs/cgroup/pids".to_owned(), false))
        );
        assert_eq!(
            pids_mount(MOUNTS_V2),
            Some(("/sys/fs/cgroup".to_owned(), true))
        );
        assert_eq!(pids_mount("25 1 0:22 / / rw - ext4 /dev/sda rw"), None);
    }

    #[test]
    fn the_own_group_is_read_per_version() {
        let groups = "8:pids:/build\n4:memory:/m\n0::/user.slice/x.scope";
        assert_eq!(own_path(groups, false).as_deref(), Some("/build"));
        assert_eq!(
            own_path(groups, true).as_deref(),
            Some("/user.slice/x.scope")
        );
        assert_eq!(own_path("4:memory:/m", false), None);
    }
}
