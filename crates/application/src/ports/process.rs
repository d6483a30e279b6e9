//! The process port: whether a process still exists on this host (for turn leases).

/// Tells whether a process id exists on this host.
pub trait ProcessProbe: Send + Sync {
    /// Whether process `pid` exists.
    fn exists(&self, pid: u32) -> bool;
}

/// A probe that cannot look: every process may exist, so only heartbeats decide.
#[derive(Debug, Default, Clone, Copy)]
pub struct UnknownProcesses;

impl ProcessProbe for UnknownProcesses {
    fn exists(&self, _pid: u32) -> bool {
        true
    }
}
