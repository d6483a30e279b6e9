//! [`TestCluster`]: a throwaway PostgreSQL server for tests, started from the
//! distribution's binaries (`initdb`, `pg_ctl`) in a temporary directory on a free
//! port, with `fsync` off, and removed when dropped.
//!
//! Without the binaries, [`TestCluster::start`] prints one loud line and returns
//! `None`, unless `SMALLEBOT_REQUIRE_POSTGRES` is set (CI sets it after installing
//! them), where it fails. `initdb` refuses to run as root: as root the cluster runs as
//! the `postgres` user (or `nobody`), through `setpriv`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::TestkitError;

/// The environment variable that turns a missing PostgreSQL into a failure.
pub const REQUIRE_POSTGRES_ENV: &str = "SMALLEBOT_REQUIRE_POSTGRES";

/// A running throwaway cluster; stopped and deleted on drop.
#[derive(Debug)]
pub struct TestCluster {
    bin: PathBuf,
    dir: PathBuf,
    port: u16,
    run_as: Option<String>,
    databases: AtomicU32,
}

/// Where the distribution keeps `initdb`: `pg_config --bindir`, else the newest
/// `/usr/lib/postgresql/<version>/bin`, else `PATH`.
fn find_binaries() -> Option<PathBuf> {
    if let Ok(out) = Command::new("pg_config").arg("--bindir").output()
        && out.status.success()
    {
        let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
        if dir.join("initdb").is_file() {
            return Some(dir);
        }
    }
    let mut versions: Vec<(u32, PathBuf)> = std::fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse::<u32>().ok()?;
            let bin = entry.path().join("bin");
            bin.join("initdb").is_file().then_some((version, bin))
        })
        .collect();
    versions.sort();
    if let Some((_, bin)) = versions.pop() {
        return Some(bin);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path).find(|dir| dir.join("initdb").is_file())
}

/// The user to run the cluster as when we are root (initdb refuses root).
fn unprivileged_user() -> Option<String> {
    let passwd = std::fs::read_to_string("/etc/passwd").ok()?;
    let names: Vec<&str> = passwd
        .lines()
        .filter_map(|line| line.split(':').next())
        .collect();
    ["postgres", "nobody"]
        .into_iter()
        .find(|name| names.contains(name))
        .map(str::to_owned)
}

fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|status| {
            status
                .lines()
                .find_map(|l| l.strip_prefix("Uid:"))
                .map(|ids| ids.split_whitespace().next() == Some("0"))
        })
        .unwrap_or(false)
}

fn free_port() -> Result<u16, TestkitError> {
    let listener = TcpListener::bind("127.0.0.1:0").map_err(TestkitError::Bind)?;
    Ok(listener.local_addr().map_err(TestkitError::Bind)?.port())
}

fn failed(what: &str, output: &Output) -> TestkitError {
    TestkitError::Postgres(format!(
        "{what} failed ({}): {}{}",
        output.status,
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    ))
}

impl TestCluster {
    /// Starts a cluster, or `None` (after printing one loud line naming `test`) when
    /// the PostgreSQL binaries are missing and not required.
    ///
    /// # Panics
    /// When the binaries are missing and [`REQUIRE_POSTGRES_ENV`] is set, or the
    /// cluster cannot start: the test fails, saying why.
    #[allow(clippy::panic)]
    pub fn start(test: &str) -> Option<Self> {
        let Some(bin) = find_binaries() else {
            if std::env::var_os(REQUIRE_POSTGRES_ENV).is_some() {
                panic!(
                    "PostgreSQL is required ({REQUIRE_POSTGRES_ENV} is set) but initdb was not \
                     found; install the postgresql package"
                );
            }
            eprintln!(
                "!!! SKIPPED PostgreSQL test `{test}`: no initdb found (install the postgresql \
                 package)"
            );
            return None;
        };
        match Self::start_with(bin) {
            Ok(cluster) => Some(cluster),
            Err(err) => panic!("cannot start a PostgreSQL test cluster for `{test}`: {err}"),
        }
    }

    fn start_with(bin: PathBuf) -> Result<Self, TestkitError> {
        let run_as = if is_root() {
            Some(unprivileged_user().ok_or_else(|| {
                TestkitError::Postgres(
                    "running as root and there is neither a postgres nor a nobody user to \
                     run initdb as"
                        .into(),
                )
            })?)
        } else {
            None
        };
        let port = free_port()?;
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir = std::env::temp_dir().join(format!(
            "smallebot-pg-{}-{port}-{nanos}",
            std::process::id()
        ));
        std::fs::create_dir_all(&dir).map_err(|e| TestkitError::Postgres(e.to_string()))?;
        let mut cluster = Self {
            bin,
            dir,
            port,
            run_as,
            databases: AtomicU32::new(0),
        };
        if let Some(user) = &cluster.run_as {
            let out = Command::new("chown")
                .arg(user)
                .arg(&cluster.dir)
                .output()
                .map_err(|e| TestkitError::Postgres(format!("chown: {e}")))?;
            if !out.status.success() {
                return Err(failed("chown", &out));
            }
        }
        let data = cluster.data_dir();
        let out = cluster.run(
            "initdb",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-U".as_ref(),
                "postgres".as_ref(),
                "--auth=trust".as_ref(),
                "--no-sync".as_ref(),
                "--encoding=UTF8".as_ref(),
                "--locale=C".as_ref(),
            ],
        )?;
        if !out.status.success() {
            return Err(failed("initdb", &out));
        }
        if let Err(err) = cluster.start_server() {
            cluster.port = 0; // nothing to stop
            return Err(err);
        }
        Ok(cluster)
    }

    fn data_dir(&self) -> PathBuf {
        self.dir.join("data")
    }

    /// Starts the server again after [`stop_server`](Self::stop_server), on the same
    /// port with the same data (waits until it accepts connections).
    ///
    /// # Errors
    /// When `pg_ctl start` fails (the server log is in the error).
    pub fn start_server(&self) -> Result<(), TestkitError> {
        let options = format!(
            "-p {} -k {} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off \
             -c full_page_writes=off -c max_connections=200",
            self.port,
            self.dir.display()
        );
        let data = self.data_dir();
        let log = self.dir.join("server.log");
        let out = self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-o".as_ref(),
                options.as_ref(),
                "-l".as_ref(),
                log.as_os_str(),
                "-w".as_ref(),
                "start".as_ref(),
            ],
        )?;
        if !out.status.success() {
            let server_log = std::fs::read_to_string(&log).unwrap_or_default();
            let err = failed("pg_ctl start", &out);
            return Err(TestkitError::Postgres(format!("{err}\n{server_log}")));
        }
        Ok(())
    }

    /// Stops the server (an outage: its connections are closed, new ones refused)
    /// and waits until it is down; the data stays for
    /// [`start_server`](Self::start_server).
    ///
    /// # Errors
    /// When `pg_ctl stop` fails.
    pub fn stop_server(&self) -> Result<(), TestkitError> {
        let data = self.data_dir();
        let out = self.run(
            "pg_ctl",
            &[
                "-D".as_ref(),
                data.as_os_str(),
                "-m".as_ref(),
                "fast".as_ref(),
                "-w".as_ref(),
                "stop".as_ref(),
            ],
        )?;
        if !out.status.success() {
            return Err(failed("pg_ctl stop", &out));
        }
        Ok(())
    }

    fn run(&self, program: &str, args: &[&std::ffi::OsStr]) -> Result<Output, TestkitError> {
        let path = self.bin.join(program);
        let mut command = match &self.run_as {
            Some(user) => {
                let mut c = Command::new("setpriv");
                c.arg(format!("--reuid={user}"))
                    .arg(format!("--regid={user}"))
                    .arg("--clear-groups")
                    .arg(&path);
                c
            }
            None => Command::new(&path),
        };
        command
            .args(args)
            .current_dir(&self.dir)
            .env_remove("PGDATA")
            .output()
            .map_err(|e| TestkitError::Postgres(format!("cannot run {}: {e}", path.display())))
    }

    /// The port the server listens on (127.0.0.1).
    pub fn port(&self) -> u16 {
        self.port
    }

    /// The URL of the `postgres` database (for administration).
    pub fn admin_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// A URL of a database that does not exist yet (for tests of creation errors).
    pub fn url_of(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    /// Creates a new empty database and returns its URL.
    ///
    /// # Errors
    /// When `createdb` fails.
    pub fn create_database(&self) -> Result<String, TestkitError> {
        let name = format!("db{}", self.databases.fetch_add(1, Ordering::Relaxed));
        let port = self.port.to_string();
        let out = self.run(
            "createdb",
            &[
                "-h".as_ref(),
                "127.0.0.1".as_ref(),
                "-p".as_ref(),
                port.as_ref(),
                "-U".as_ref(),
                "postgres".as_ref(),
                name.as_ref(),
            ],
        )?;
        if !out.status.success() {
            return Err(failed("createdb", &out));
        }
        Ok(self.url_of(&name))
    }

    /// The data directory (for tests that look at the server log).
    pub fn dir(&self) -> &Path {
        &self.dir
    }
}

impl Drop for TestCluster {
    fn drop(&mut self) {
        if self.port != 0 {
            let data = self.data_dir();
            let _ = self.run(
                "pg_ctl",
                &[
                    "-D".as_ref(),
                    data.as_os_str(),
                    "-m".as_ref(),
                    "immediate".as_ref(),
                    "-w".as_ref(),
                    "stop".as_ref(),
                ],
            );
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}
