//! Running one command line: `/bin/sh -c` in its own process group, both pipes read
//! concurrently into a bounded [`Capture`], and the whole group killed when the command
//! ends, times out or is cancelled.
//!
//! The call never waits for the pipes to close: a background process may hold them open
//! for ever. Once the shell has exited or been killed, the readers get
//! [`PIPE_GRACE`] to collect what is still buffered, then they are stopped.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use tokio::io::{AsyncRead, AsyncReadExt};
use tokio::process::Command;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use super::capture::Capture;

/// How long the pipe readers may go on after the shell has exited or been killed.
pub(crate) const PIPE_GRACE: Duration = Duration::from_millis(200);

/// How long to wait for a killed shell to be reaped.
pub(crate) const REAP_GRACE: Duration = Duration::from_secs(2);

/// How one run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Ending {
    /// The shell exited by itself.
    Exited(ExitStatus),
    /// The time limit passed; the group was killed.
    TimedOut(Duration),
    /// The turn was cancelled; the group was killed.
    Cancelled,
}

/// The result of one run.
#[derive(Debug)]
pub(crate) struct Finished {
    /// Standard output and error interleaved as they arrived, capped.
    pub(crate) output: String,
    /// How it ended.
    pub(crate) ending: Ending,
}

/// `/bin/sh -c command` in `dir`, unconfined, with exactly the variables `environment`:
/// for [`run_shell`] without a sandbox.
pub(crate) fn plain_shell(
    command: &str,
    dir: &Path,
    environment: BTreeMap<OsString, OsString>,
) -> Command {
    let mut shell = Command::new("/bin/sh");
    shell
        .arg("-c")
        .arg(command)
        .current_dir(dir)
        .env_clear()
        .envs(environment);
    shell
}

/// Runs `shell` (a `/bin/sh -c` command line, or the sandbox helper that becomes one).
///
/// Whatever is still running in the command's process group when the shell exits is
/// killed too: nothing started by the call outlives it (a process that leaves the group
/// with `setsid` escapes this, as it escapes any group kill).
///
/// # Errors
/// The shell could not be started or waited for.
pub(crate) async fn run_shell(
    mut shell: Command,
    timeout: Duration,
    max_output_chars: usize,
    cancel: &CancellationToken,
) -> io::Result<Finished> {
    shell
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    own_process_group(&mut shell);
    let mut child = shell.spawn()?;
    let group = child.id();

    let capture = Arc::new(Mutex::new(Capture::new(max_output_chars)));
    let mut readers = JoinSet::new();
    if let Some(pipe) = child.stdout.take() {
        readers.spawn(read_into(pipe, Arc::clone(&capture)));
    }
    if let Some(pipe) = child.stderr.take() {
        readers.spawn(read_into(pipe, Arc::clone(&capture)));
    }

    let waited = tokio::select! {
        status = child.wait() => status.map(Ending::Exited),
        () = tokio::time::sleep(timeout) => Ok(Ending::TimedOut(timeout)),
        () = cancel.cancelled() => Ok(Ending::Cancelled),
    };
    kill_group(group);
    if !matches!(waited, Ok(Ending::Exited(_))) {
        // SIGKILL cannot be ignored; reap the shell so it leaves no zombie.
        let _ = tokio::time::timeout(REAP_GRACE, child.wait()).await;
    }
    let _ = tokio::time::timeout(PIPE_GRACE, async {
        while readers.join_next().await.is_some() {}
    })
    .await;
    readers.abort_all();

    let ending = waited?;
    let capture = std::mem::replace(
        &mut *capture.lock().unwrap_or_else(PoisonError::into_inner),
        Capture::new(0),
    );
    Ok(Finished {
        output: capture.finish(max_output_chars),
        ending,
    })
}

/// Copies a pipe into the capture until end of file or an error.
async fn read_into(mut pipe: impl AsyncRead + Unpin, capture: Arc<Mutex<Capture>>) {
    let mut buffer = vec![0_u8; 16 * 1024];
    loop {
        match pipe.read(&mut buffer).await {
            Ok(0) | Err(_) => break,
            Ok(n) => capture
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .push(&buffer[..n]),
        }
    }
}

/// Puts the shell in a new process group whose id is its pid.
#[cfg(unix)]
pub(crate) fn own_process_group(command: &mut Command) {
    command.process_group(0);
}

#[cfg(not(unix))]
pub(crate) fn own_process_group(_command: &mut Command) {}

/// Sends SIGKILL to the process group `group` (the shell's pid). A group that is
/// already gone (`ESRCH`) is fine.
#[cfg(unix)]
pub(crate) fn kill_group(group: Option<u32>) {
    use rustix::process::{Pid, Signal, kill_process_group};
    let Some(pid) = group
        .and_then(|id| i32::try_from(id).ok())
        .and_then(Pid::from_raw)
    else {
        return;
    };
    if let Err(error) = kill_process_group(pid, Signal::KILL)
        && error != rustix::io::Errno::SRCH
    {
        tracing::warn!(group = pid.as_raw_pid(), %error, "could not kill a command process group");
    }
}

#[cfg(not(unix))]
pub(crate) fn kill_group(_group: Option<u32>) {}
