//! Graceful shutdown: the signals that stop a command (`SIGTERM` from `systemctl stop`
//! or `docker stop`, `SIGHUP` when the terminal goes away, `SIGINT` from Ctrl+C), caught
//! so that the running turns end stored — their partial answers kept, their tool calls
//! ended `interrupted`, their commands' process groups killed and their control groups
//! and temporary folders removed — before the process exits.

use crate::error::HostError;

/// A stop signal caught.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// `SIGTERM`.
    Terminate,
    /// `SIGHUP`.
    HangUp,
    /// `SIGINT`.
    Interrupt,
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Terminate => "SIGTERM",
            Self::HangUp => "SIGHUP",
            Self::Interrupt => "SIGINT",
        })
    }
}

/// The stop signals of a command, caught from [`StopSignals::catch`] on (until then
/// they end the process at once, as by default).
#[derive(Debug)]
pub struct StopSignals {
    #[cfg(unix)]
    terminate: tokio::signal::unix::Signal,
    #[cfg(unix)]
    hang_up: tokio::signal::unix::Signal,
    /// `None`: SIGINT is left to the command (the REPL's Ctrl+C).
    #[cfg(unix)]
    interrupt: Option<tokio::signal::unix::Signal>,
    #[cfg(not(unix))]
    interrupt: bool,
}

impl StopSignals {
    /// Catches SIGTERM and SIGHUP, and SIGINT too when `interrupt`.
    ///
    /// # Errors
    /// A handler could not be installed.
    pub fn catch(interrupt: bool) -> Result<Self, HostError> {
        #[cfg(unix)]
        {
            use tokio::signal::unix::{SignalKind, signal};
            Ok(Self {
                terminate: signal(SignalKind::terminate())?,
                hang_up: signal(SignalKind::hangup())?,
                interrupt: if interrupt {
                    Some(signal(SignalKind::interrupt())?)
                } else {
                    None
                },
            })
        }
        #[cfg(not(unix))]
        Ok(Self { interrupt })
    }

    /// The next stop signal.
    pub async fn recv(&mut self) -> Stop {
        #[cfg(unix)]
        {
            let interrupt = async {
                match self.interrupt.as_mut() {
                    Some(signal) => signal.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                _ = self.terminate.recv() => Stop::Terminate,
                _ = self.hang_up.recv() => Stop::HangUp,
                _ = interrupt => Stop::Interrupt,
            }
        }
        #[cfg(not(unix))]
        {
            if self.interrupt && tokio::signal::ctrl_c().await.is_ok() {
                return Stop::Interrupt;
            }
            std::future::pending().await
        }
    }
}

#[async_trait::async_trait]
impl smallebot_terminal::stop::StopRequests for StopSignals {
    async fn next(&mut self) -> String {
        self.recv().await.to_string()
    }
}
