//! This process as the owner of turn leases, and the probe that tells whether another
//! process on this host still exists.

use smallebot_application::ports::ProcessProbe;
use smallebot_core::entities::LeaseOwner;

/// This process: its id, the host name, and now as its start (each assembled agent is
/// its own owner).
#[must_use]
pub fn this_process() -> LeaseOwner {
    LeaseOwner {
        pid: std::process::id(),
        host: host_name(),
        // Timestamps are stored with milliseconds: so the owner reads back equal.
        started_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 3),
    }
}

/// The host name (`uname -n`), or `localhost` where it cannot be read.
#[must_use]
pub fn host_name() -> String {
    #[cfg(unix)]
    {
        let name = rustix::system::uname()
            .nodename()
            .to_string_lossy()
            .into_owned();
        if !name.is_empty() {
            return name;
        }
    }
    "localhost".to_owned()
}

/// Asks the kernel whether a process id exists (signal 0: nothing is sent).
#[derive(Debug, Default, Clone, Copy)]
pub struct LocalProcesses;

impl ProcessProbe for LocalProcesses {
    #[cfg(unix)]
    fn exists(&self, pid: u32) -> bool {
        let Some(pid) = i32::try_from(pid)
            .ok()
            .and_then(rustix::process::Pid::from_raw)
        else {
            return false;
        };
        match rustix::process::test_kill_process(pid) {
            Ok(()) => true,
            // It exists but belongs to someone else.
            Err(error) => error == rustix::io::Errno::PERM,
        }
    }

    #[cfg(not(unix))]
    fn exists(&self, _pid: u32) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn this_process_exists_and_a_reaped_child_does_not() {
        let probe = LocalProcesses;
        assert!(probe.exists(std::process::id()));
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let pid = child.id();
        child.wait().unwrap();
        assert!(!probe.exists(pid));
        assert!(!this_process().host.is_empty());
    }
}
