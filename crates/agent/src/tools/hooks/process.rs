//! One hook's process: `/bin/sh -c` in its own process group, the input on standard
//! input, both outputs read (bounded), the group killed when the hook exits, times out
//! or the turn is cancelled — as `ExecuteCommand` kills its commands' groups.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use smallebot_core::rules::hook::HookExit;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::Command;
use tokio_util::sync::CancellationToken;

use crate::tools::shell::process::{PIPE_GRACE, REAP_GRACE, kill_group, own_process_group};

/// The most of each output kept (bytes).
const MAX_OUTPUT_BYTES: u64 = 1024 * 1024;

/// How one hook ran.
#[derive(Debug, Clone)]
pub(crate) struct HookProcess {
    /// How it ended.
    pub(crate) exit: HookExit,
    /// Its standard output (lossy UTF-8, bounded).
    pub(crate) stdout: String,
    /// Its standard error (lossy UTF-8, bounded).
    pub(crate) stderr: String,
    /// How long it ran.
    pub(crate) duration: Duration,
}

/// What one hook is run with.
pub(crate) struct Launch<'a> {
    /// The command line.
    pub(crate) command: &'a str,
    /// The directory it runs in.
    pub(crate) dir: &'a Path,
    /// Its whole environment.
    pub(crate) environment: &'a BTreeMap<OsString, OsString>,
    /// What it reads on standard input.
    pub(crate) input: &'a [u8],
    /// Its time limit.
    pub(crate) timeout: Duration,
}

/// Runs one hook. A hook that cannot be started is reported as exiting with 127 and
/// the reason on standard error, as the shell reports a command it cannot find.
pub(crate) async fn run_hook(launch: &Launch<'_>, cancel: &CancellationToken) -> HookProcess {
    let started = Instant::now();
    let mut shell = Command::new("/bin/sh");
    shell
        .arg("-c")
        .arg(launch.command)
        .current_dir(launch.dir)
        .env_clear()
        .envs(launch.environment)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    own_process_group(&mut shell);
    let mut child = match shell.spawn() {
        Ok(child) => child,
        Err(error) => {
            return HookProcess {
                exit: HookExit::Code(127),
                stdout: String::new(),
                stderr: format!("cannot start /bin/sh in {}: {error}", launch.dir.display()),
                duration: started.elapsed(),
            };
        }
    };
    let group = child.id();
    if let Some(mut stdin) = child.stdin.take() {
        let input = launch.input.to_vec();
        // A hook that does not read its input must not block on a full pipe.
        tokio::spawn(async move {
            let _ = stdin.write_all(&input).await;
        });
    }
    let stdout = child.stdout.take().map(|pipe| tokio::spawn(read_all(pipe)));
    let stderr = child.stderr.take().map(|pipe| tokio::spawn(read_all(pipe)));
    let exit = tokio::select! {
        status = child.wait() => match status {
            Ok(status) => status.code().map_or(HookExit::Signalled, HookExit::Code),
            Err(_) => HookExit::Signalled,
        },
        () = tokio::time::sleep(launch.timeout) => HookExit::TimedOut(launch.timeout.as_secs()),
        () = cancel.cancelled() => HookExit::Cancelled,
    };
    kill_group(group);
    if matches!(exit, HookExit::TimedOut(_) | HookExit::Cancelled) {
        let _ = tokio::time::timeout(REAP_GRACE, child.wait()).await;
    }
    HookProcess {
        exit,
        stdout: collected(stdout).await,
        stderr: collected(stderr).await,
        duration: started.elapsed(),
    }
}

/// What a reader collected, waiting at most [`PIPE_GRACE`] for the pipe to close.
async fn collected(reader: Option<tokio::task::JoinHandle<Vec<u8>>>) -> String {
    let Some(mut reader) = reader else {
        return String::new();
    };
    match tokio::time::timeout(PIPE_GRACE, &mut reader).await {
        Ok(Ok(bytes)) => String::from_utf8_lossy(&bytes).into_owned(),
        _ => {
            reader.abort();
            String::new()
        }
    }
}

/// A pipe's bytes, at most [`MAX_OUTPUT_BYTES`] (the rest is read and dropped).
async fn read_all(pipe: impl AsyncRead + Unpin) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut limited = pipe.take(MAX_OUTPUT_BYTES);
    let _ = limited.read_to_end(&mut kept).await;
    let mut rest = limited.into_inner();
    let _ = tokio::io::copy(&mut rest, &mut tokio::io::sink()).await;
    kept
}
