//! The sandbox keys of terminal.json: `sandbox`, `network`, `limits`, `readablePaths`,
//! `writablePaths`, checked into [`SandboxSettings`].

use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;

use smallebot_sandbox::{CommandLimits, NetworkAccess, SandboxMode, SandboxSettings};

/// `limits` as written.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "the command limits"))]
pub(super) struct RawLimits {
    cpu_seconds: Option<i64>,
    memory_mb: Option<i64>,
    processes: Option<i64>,
    open_files: Option<i64>,
}

/// The sandbox keys as written.
#[derive(Debug, Default)]
pub(super) struct RawSandbox {
    pub(super) sandbox: Option<String>,
    pub(super) network: Option<String>,
    pub(super) limits: Option<RawLimits>,
    pub(super) readable_paths: Option<Vec<String>>,
    pub(super) writable_paths: Option<Vec<String>>,
}

impl RawSandbox {
    /// The checked settings; `home_dir` expands a leading `~/` in paths.
    ///
    /// # Errors
    /// What is wrong, naming the key: an unknown mode or network value, a limit out of
    /// its range, a path that is not absolute, or `network: deny` with `sandbox: off`.
    pub(super) fn into_settings(self, home_dir: Option<&Path>) -> Result<SandboxSettings, String> {
        let mode = match self.sandbox.as_deref() {
            None => SandboxMode::default(),
            Some(name) => SandboxMode::from_name(name).ok_or_else(|| {
                format!(
                    "sandbox: unknown mode '{name}'; use one of {}",
                    SandboxMode::NAMES.join(", ")
                )
            })?,
        };
        let network = match self.network.as_deref() {
            None | Some("allow") => NetworkAccess::Allow,
            Some("deny") => NetworkAccess::Deny,
            Some(other) => {
                return Err(format!(
                    "network: unknown value '{other}'; use allow or deny"
                ));
            }
        };
        if mode == SandboxMode::Off && network == NetworkAccess::Deny {
            return Err(
                "network: deny needs the sandbox, but sandbox is off; set sandbox to \
                        workspace-write or read-only, or network to allow"
                    .to_owned(),
            );
        }
        Ok(SandboxSettings {
            mode,
            network,
            limits: limits(self.limits.unwrap_or_default())?,
            readable_paths: paths("readablePaths", self.readable_paths, home_dir)?,
            writable_paths: paths("writablePaths", self.writable_paths, home_dir)?,
        })
    }
}

/// The system prompt's line about the sandbox and the limits.
pub(super) fn sandbox_line(settings: &SandboxSettings) -> String {
    let limits = &settings.limits;
    let limits = format!(
        "Limits per command: {} s of CPU and {} MiB of memory per process, {} processes, \
         {} open files.",
        limits.cpu_seconds, limits.memory_mb, limits.processes, limits.open_files
    );
    let reach = match settings.mode {
        SandboxMode::Off => return format!("- Sandbox: off. {limits}"),
        SandboxMode::WorkspaceWrite => {
            "commands read the system and read and write only the \
                                        workspace"
        }
        SandboxMode::ReadOnly => {
            "commands read the system and the workspace but write \
                                  nothing there"
        }
    };
    let network = match settings.network {
        NetworkAccess::Allow => "",
        NetworkAccess::Deny => " TCP connections are refused (no downloads).",
    };
    format!(
        "- Sandbox ({}): {reach}, plus $TMPDIR (also $HOME), a private directory removed \
         after each command. Everything else (other directories, the user's home) is out \
         of reach: a \"Permission denied\" there is the sandbox, not a bug to work \
         around.{network} {limits}",
        settings.mode
    )
}

/// Each limit given, checked against [`CommandLimits::RANGES`]; the default otherwise.
fn limits(raw: RawLimits) -> Result<CommandLimits, String> {
    let given = [
        raw.cpu_seconds,
        raw.memory_mb,
        raw.processes,
        raw.open_files,
    ];
    let mut values = [0_u64; 4];
    for ((value, given), (key, default, min, max)) in
        values.iter_mut().zip(given).zip(CommandLimits::RANGES)
    {
        *value = match given {
            None => default,
            Some(n) => u64::try_from(n)
                .ok()
                .filter(|n| (min..=max).contains(n))
                .ok_or_else(|| {
                    format!(
                        "limits.{key}: {n} is out of range; give {min}..={max} (default {default})"
                    )
                })?,
        };
    }
    let [cpu_seconds, memory_mb, processes, open_files] = values;
    Ok(CommandLimits {
        cpu_seconds,
        memory_mb,
        processes,
        open_files,
    })
}

/// Absolute paths, a leading `~/` taken from `home_dir`.
fn paths(
    key: &str,
    raw: Option<Vec<String>>,
    home_dir: Option<&Path>,
) -> Result<Vec<PathBuf>, String> {
    raw.unwrap_or_default()
        .into_iter()
        .map(|written| {
            let path = match (written.strip_prefix("~/"), home_dir) {
                (Some(rest), Some(home)) => home.join(rest),
                (Some(_), None) => {
                    return Err(format!(
                        "{key}: '{written}' starts with ~/ but HOME is not set; give an \
                         absolute path"
                    ));
                }
                (None, _) => PathBuf::from(&written),
            };
            if path.is_absolute() {
                Ok(path)
            } else {
                Err(format!(
                    "{key}: '{written}' is not an absolute path; give one such as /opt/tools \
                     or ~/.cargo"
                ))
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn raw() -> RawSandbox {
        RawSandbox::default()
    }

    #[test]
    fn defaults_when_nothing_is_given() {
        let settings = raw().into_settings(None).unwrap();
        assert_eq!(settings, SandboxSettings::default());
        assert_eq!(settings.mode, SandboxMode::WorkspaceWrite);
        assert_eq!(settings.network, NetworkAccess::Allow);
        assert_eq!(settings.limits.memory_mb, 8_192);
    }

    #[test]
    fn bad_values_are_errors_naming_the_key() {
        let cases: Vec<(RawSandbox, &str)> = vec![
            (
                RawSandbox {
                    sandbox: Some("strict".into()),
                    ..raw()
                },
                "sandbox: unknown mode 'strict'",
            ),
            (
                RawSandbox {
                    network: Some("none".into()),
                    ..raw()
                },
                "network: unknown value 'none'",
            ),
            (
                RawSandbox {
                    sandbox: Some("off".into()),
                    network: Some("deny".into()),
                    ..raw()
                },
                "network: deny needs the sandbox",
            ),
            (
                RawSandbox {
                    limits: Some(RawLimits {
                        processes: Some(2),
                        ..RawLimits::default()
                    }),
                    ..raw()
                },
                "limits.processes: 2 is out of range; give 8..=65536",
            ),
            (
                RawSandbox {
                    limits: Some(RawLimits {
                        memory_mb: Some(-1),
                        ..RawLimits::default()
                    }),
                    ..raw()
                },
                "limits.memoryMb: -1 is out of range",
            ),
            (
                RawSandbox {
                    readable_paths: Some(vec!["tools".into()]),
                    ..raw()
                },
                "readablePaths: 'tools' is not an absolute path",
            ),
            (
                RawSandbox {
                    writable_paths: Some(vec!["~/x".into()]),
                    ..raw()
                },
                "writablePaths: '~/x' starts with ~/ but HOME is not set",
            ),
        ];
        for (raw, expected) in cases {
            let error = raw.into_settings(None).unwrap_err();
            assert!(error.starts_with(expected), "{error} / {expected}");
        }
    }

    #[test]
    fn values_in_range_and_home_relative_paths_are_taken() {
        let settings = RawSandbox {
            sandbox: Some("read-only".into()),
            network: Some("deny".into()),
            limits: Some(RawLimits {
                cpu_seconds: Some(5),
                memory_mb: Some(64),
                processes: Some(8),
                open_files: Some(1_048_576),
            }),
            readable_paths: Some(vec!["~/.cargo".into(), "/opt/x".into()]),
            writable_paths: None,
        }
        .into_settings(Some(Path::new("/home/ann")))
        .unwrap();
        assert_eq!(settings.mode, SandboxMode::ReadOnly);
        assert_eq!(settings.network, NetworkAccess::Deny);
        assert_eq!(
            settings.limits,
            CommandLimits {
                cpu_seconds: 5,
                memory_mb: 64,
                processes: 8,
                open_files: 1_048_576
            }
        );
        assert_eq!(
            settings.readable_paths,
            [PathBuf::from("/home/ann/.cargo"), PathBuf::from("/opt/x")]
        );
        assert_eq!(settings.describe(), "read-only, network denied");
    }
}
