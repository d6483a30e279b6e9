//! `smallebot serve` (the release binary) in its own process, for the benchmarks that
//! measure the web server as it runs.

use std::path::Path;
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};

/// `smallebot serve` in its own process.
pub struct Server {
    child: tokio::process::Child,
    /// Its address, `http://127.0.0.1:PORT` (no trailing slash).
    pub base: String,
}

impl Server {
    /// Starts `binary serve` on a free port with `home`, the model at `model_url`,
    /// and user `bench`; returns once it listens.
    pub async fn start(binary: &Path, home: &Path, model_url: &str) -> Result<Self, String> {
        let mut child = tokio::process::Command::new(binary)
            .arg("--home")
            .arg(home)
            .args(["serve", "--addr", "127.0.0.1:0", "--user", "bench"])
            // Warnings only: a line per request and turn would measure the terminal.
            .args(["--log-level", "warn"])
            .env("OPENAI_BASE_URL", model_url)
            .env("OPENAI_API_KEY", "bench")
            .env("SMALLEBOT_MODEL", "bench-model")
            .env_remove("SMALLEBOT_HOME")
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let stdout = child.stdout.take().ok_or("the server has no stdout")?;
        let banner = tokio::time::timeout(
            Duration::from_secs(30),
            BufReader::new(stdout).lines().next_line(),
        )
        .await
        .map_err(|_| "the server printed nothing within 30 s".to_owned())?
        .map_err(|e| e.to_string())?
        .ok_or("the server exited before listening")?;
        let base = banner
            .split_whitespace()
            .find(|w| w.starts_with("http://"))
            .ok_or_else(|| format!("no address in the banner: {banner}"))?
            .trim_end_matches('/')
            .to_owned();
        Ok(Self { child, base })
    }

    /// The process's peak resident set (`VmHWM`), in MB.
    pub fn peak_rss_mb(&self) -> Option<f64> {
        let pid = self.child.id()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        let kb: f64 = status
            .lines()
            .find_map(|l| l.strip_prefix("VmHWM:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()?;
        Some(kb / 1024.0)
    }

    /// The process's resident set now (`VmRSS`), in KiB.
    pub fn rss_kib(&self) -> Option<f64> {
        let pid = self.child.id()?;
        let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
        status
            .lines()
            .find_map(|l| l.strip_prefix("VmRSS:"))?
            .trim()
            .trim_end_matches("kB")
            .trim()
            .parse()
            .ok()
    }

    /// The CPU time the process used so far (user + system, all threads), in seconds.
    pub fn cpu_seconds(&self) -> Option<f64> {
        /// The unit of `/proc/<pid>/stat` times (`USER_HZ`, fixed at 100 on Linux).
        const TICKS_PER_SECOND: f64 = 100.0;
        let pid = self.child.id()?;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        // Fields after the command name (which may hold spaces) end with ')'.
        let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
        // utime and stime are fields 14 and 15 of the line, 12 and 13 after the name.
        let utime: f64 = fields.get(11)?.parse().ok()?;
        let stime: f64 = fields.get(12)?.parse().ok()?;
        Some((utime + stime) / TICKS_PER_SECOND)
    }

    /// Stops the server.
    pub async fn stop(mut self) {
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
    }
}
