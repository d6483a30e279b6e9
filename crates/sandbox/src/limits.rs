//! Applying [`CommandLimits`] in the helper: `setrlimit` for CPU time, address space
//! and open files; the process count through a pids control group when the host made
//! one, else `RLIMIT_NPROC` (which the kernel does not apply to root).

use std::path::Path;

use rustix::process::{Resource, Rlimit, getrlimit, setrlimit};

use super::settings::CommandLimits;

/// One MiB.
const MIB: u64 = 1024 * 1024;

/// Applies `limits` to the calling process (inherited by what it executes).
///
/// # Errors
/// Which limit could not be set, and why.
pub(crate) fn apply(limits: &CommandLimits, cgroup: Option<&Path>) -> Result<(), String> {
    // CPU: SIGXCPU at the limit, SIGKILL a second later.
    set("cpuSeconds", Resource::Cpu, limits.cpu_seconds, 1)?;
    set(
        "memoryMb",
        Resource::As,
        limits.memory_mb.saturating_mul(MIB),
        0,
    )?;
    set("openFiles", Resource::Nofile, limits.open_files, 0)?;
    match cgroup {
        Some(group) => {
            let procs = group.join("cgroup.procs");
            let pid = rustix::process::getpid().as_raw_pid().to_string();
            std::fs::write(&procs, pid)
                .map_err(|e| format!("processes: cannot join {}: {e}", group.display()))?;
        }
        None if !rustix::process::geteuid().is_root() => {
            // RLIMIT_NPROC counts every task of the user: allow the command this many
            // more than run now.
            let running = user_tasks(rustix::process::getuid().as_raw());
            set(
                "processes",
                Resource::Nproc,
                running.saturating_add(limits.processes),
                0,
            )?;
        }
        // Root without a control group: the host reported it at start.
        None => {}
    }
    Ok(())
}

/// Sets the soft limit of `resource` to `value` and the hard one to `value + extra`,
/// never above the hard limit in force (which only root may raise).
fn set(key: &str, resource: Resource, value: u64, extra: u64) -> Result<(), String> {
    let hard_now = getrlimit(resource).maximum;
    let cap = |v: u64| hard_now.map_or(v, |hard| v.min(hard));
    let limit = Rlimit {
        current: Some(cap(value)),
        maximum: Some(cap(value.saturating_add(extra))),
    };
    setrlimit(resource, limit).map_err(|e| format!("limits.{key}: cannot set {value}: {e}"))
}

/// How many tasks (threads included, as `RLIMIT_NPROC` counts them) the real user
/// `uid` runs now, from `/proc`.
fn user_tasks(uid: u32) -> u64 {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return 0;
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .bytes()
                .all(|b| b.is_ascii_digit())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("status")).ok())
        .filter_map(|status| tasks_of(&status, uid))
        .sum()
}

/// The `Threads:` of a `/proc/<pid>/status` whose real uid is `uid`.
fn tasks_of(status: &str, uid: u32) -> Option<u64> {
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|value| value.parse::<u64>().ok())
    };
    (field("Uid:")? == u64::from(uid)).then(|| field("Threads:"))?
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tasks_are_counted_for_the_user_only() {
        let status = "Name:\tsh\nUid:\t1000\t1000\t1000\t1000\nThreads:\t3\n";
        assert_eq!(tasks_of(status, 1000), Some(3));
        assert_eq!(tasks_of(status, 0), None);
        assert_eq!(tasks_of("Name:\tx\n", 1000), None);
    }
}
