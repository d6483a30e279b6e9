//! A stdio server's process: started in a process group of its own, so that stopping it
//! kills the whole group — a wrapper (`bash -c`, `npx`, `uvx`), the server it started
//! and whatever that server started itself — even when it is stuck in a call; and its
//! standard output read with a bound on the length of one message.

use std::io;
use std::pin::Pin;
use std::process::Stdio;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, ReadBuf};
use tokio::process::{Child, ChildStderr, ChildStdin, ChildStdout, Command};

/// A running server process; dropping it kills its process group.
#[derive(Debug)]
pub(crate) struct ServerProcess {
    child: Child,
    /// The process group (the child's pid); `None` once killed.
    group: Option<u32>,
}

/// The pipes of a started server.
pub(crate) struct ServerPipes {
    /// Its standard output, cut off past the message limit.
    pub(crate) stdout: LimitedLines<ChildStdout>,
    /// Its standard input.
    pub(crate) stdin: ChildStdin,
    /// Its standard error.
    pub(crate) stderr: Option<ChildStderr>,
}

impl ServerProcess {
    /// Starts `command` in a new process group with piped standard streams; a line of
    /// its standard output longer than `max_line` bytes sets `oversized` and ends the
    /// output with an error.
    ///
    /// # Errors
    /// The process could not be started.
    pub(crate) fn spawn(
        mut command: Command,
        max_line: usize,
        oversized: Arc<AtomicBool>,
    ) -> io::Result<(Self, ServerPipes)> {
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        command.process_group(0);
        let mut child = command.spawn()?;
        let (Some(stdout), Some(stdin)) = (child.stdout.take(), child.stdin.take()) else {
            return Err(io::Error::other("the server's pipes could not be opened"));
        };
        let stderr = child.stderr.take();
        let group = child.id();
        let pipes = ServerPipes {
            stdout: LimitedLines::new(stdout, max_line, oversized),
            stdin,
            stderr,
        };
        Ok((Self { child, group }, pipes))
    }

    /// Kills the whole process group (at once, with SIGKILL) and reaps the server.
    /// Idempotent.
    pub(crate) async fn kill(&mut self) {
        self.kill_group();
        let _ = tokio::time::timeout(std::time::Duration::from_secs(2), self.child.wait()).await;
    }

    /// Sends SIGKILL to the process group; a group already gone is fine.
    fn kill_group(&mut self) {
        let Some(group) = self.group.take() else {
            return;
        };
        #[cfg(unix)]
        {
            use rustix::process::{Pid, Signal, kill_process_group};
            if let Some(pid) = i32::try_from(group).ok().and_then(Pid::from_raw)
                && let Err(error) = kill_process_group(pid, Signal::KILL)
                && error != rustix::io::Errno::SRCH
            {
                tracing::warn!(group, %error, "could not kill an MCP server's process group");
            }
        }
        #[cfg(not(unix))]
        let _ = group;
        let _ = self.child.start_kill();
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        self.kill_group();
    }
}

/// A reader that fails once a line (one JSON-RPC message over stdio) grows past its
/// limit, so that a result too large fails the call at once instead of being dropped
/// while the call waits for its timeout.
pub(crate) struct LimitedLines<R> {
    inner: R,
    limit: usize,
    /// Bytes of the current line read so far.
    current: usize,
    oversized: Arc<AtomicBool>,
}

impl<R> LimitedLines<R> {
    /// `inner` with lines of at most `limit` bytes (the newline not counted).
    pub(crate) fn new(inner: R, limit: usize, oversized: Arc<AtomicBool>) -> Self {
        Self {
            inner,
            limit,
            current: 0,
            oversized,
        }
    }

    /// Counts `bytes`; `false` once the current line is over the limit.
    fn count(&mut self, bytes: &[u8]) -> bool {
        match (
            bytes.iter().position(|b| *b == b'\n'),
            bytes.iter().rposition(|b| *b == b'\n'),
        ) {
            (Some(first), Some(last)) => {
                let within = self.current.saturating_add(first) <= self.limit;
                // Lines between two newlines of this chunk.
                let inner_ok = bytes[first..=last]
                    .split(|b| *b == b'\n')
                    .all(|line| line.len() <= self.limit);
                self.current = bytes.len() - last - 1;
                within && inner_ok && self.current <= self.limit
            }
            _ => {
                self.current = self.current.saturating_add(bytes.len());
                self.current <= self.limit
            }
        }
    }
}

impl<R: AsyncRead + Unpin> AsyncRead for LimitedLines<R> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        if self.oversized.load(Ordering::SeqCst) {
            return Poll::Ready(Err(oversized_error(self.limit)));
        }
        let before = buf.filled().len();
        let polled = Pin::new(&mut self.inner).poll_read(cx, buf);
        if let Poll::Ready(Ok(())) = &polled
            && !self.count(&buf.filled()[before..])
        {
            self.oversized.store(true, Ordering::SeqCst);
            return Poll::Ready(Err(oversized_error(self.limit)));
        }
        polled
    }
}

fn oversized_error(limit: usize) -> io::Error {
    io::Error::new(
        io::ErrorKind::InvalidData,
        format!("the MCP server sent a message over {limit} bytes"),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_are_counted_across_reads() {
        // (limit, chunks, whether every chunk is accepted)
        let cases: [(usize, &[&[u8]], bool); 6] = [
            (4, &[b"abcd\n"], true),
            (4, &[b"abcde\n"], false),
            (4, &[b"ab", b"cd", b"\nabcd\n"], true),
            (4, &[b"ab", b"cde"], false),
            (4, &[b"a\nabcdef\nb"], false),
            (4, &[b"abcd\nab", b"cd\n"], true),
        ];
        for (limit, chunks, expected) in cases {
            let mut lines = LimitedLines::new((), limit, Arc::default());
            let accepted = chunks.iter().all(|chunk| lines.count(chunk));
            assert_eq!(accepted, expected, "{chunks:?}");
        }
    }
}
