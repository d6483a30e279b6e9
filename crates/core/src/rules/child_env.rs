//! Which environment variables a child process gets: a command run by `ExecuteCommand`
//! or an MCP server started over stdio. The host's environment holds secrets (the
//! database URL with its password, the models' API keys, whatever the person exported),
//! so a child starts from nothing and gets only an allow-list:
//!
//! 1. the base, taken from the host when set there: [`BASE_VARIABLES`] and every
//!    `LC_*` variable;
//! 2. the names the configuration passes on purpose (`pass`), taken from the host;
//! 3. the fixed values the caller gives (a command's `HOME` is its workspace), which
//!    win over 1 and 2;
//! 4. the literal values the configuration sets (`set`), which win over everything.
//!
//! Nothing else of the host reaches the child.

use std::collections::BTreeMap;
use std::ffi::{OsStr, OsString};

/// The variables every child gets from the host when they are set there (besides
/// every `LC_*`).
pub const BASE_VARIABLES: [&str; 7] = ["PATH", "HOME", "LANG", "TERM", "TZ", "USER", "TMPDIR"];

/// `PATH` when the host has none.
pub const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// What a child's environment is made of besides the base.
#[derive(Debug, Clone, Copy)]
pub struct ChildEnvRule<'a> {
    /// Host variables passed on purpose (taken from the host when set there).
    pub pass: &'a [String],
    /// Values fixed by the caller (say `HOME` of a command: its workspace).
    pub fixed: &'a [(&'a str, &'a OsStr)],
    /// Literal values from the configuration; they win over everything.
    pub set: &'a BTreeMap<String, String>,
}

/// No values set.
static NOTHING_SET: BTreeMap<String, String> = BTreeMap::new();

impl Default for ChildEnvRule<'_> {
    /// The base alone.
    fn default() -> Self {
        Self {
            pass: &[],
            fixed: &[],
            set: &NOTHING_SET,
        }
    }
}

/// Whether `name` belongs to the base.
#[must_use]
pub fn is_base_variable(name: &OsStr) -> bool {
    BASE_VARIABLES.iter().any(|base| OsStr::new(base) == name)
        || name.as_encoded_bytes().starts_with(b"LC_")
}

/// The whole environment of a child, from the host's variables `host` and `rule`.
/// `PATH` is [`DEFAULT_PATH`] when nothing gives one (a child must find `/bin/sh`'s
/// tools).
#[must_use]
pub fn child_environment<I>(host: I, rule: &ChildEnvRule<'_>) -> BTreeMap<OsString, OsString>
where
    I: IntoIterator<Item = (OsString, OsString)>,
{
    let mut out: BTreeMap<OsString, OsString> = host
        .into_iter()
        .filter(|(name, _)| {
            is_base_variable(name) || rule.pass.iter().any(|pass| OsStr::new(pass) == name)
        })
        .collect();
    for (name, value) in rule.fixed {
        out.insert(OsString::from(name), (*value).to_os_string());
    }
    for (name, value) in rule.set {
        out.insert(OsString::from(name), OsString::from(value));
    }
    out.entry(OsString::from("PATH"))
        .or_insert_with(|| OsString::from(DEFAULT_PATH));
    out
}

/// Why a name cannot be an environment variable's, or `None` when it can: not empty,
/// no `=` and no NUL.
#[must_use]
pub fn invalid_variable_name(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("it is empty")
    } else if name.contains('=') {
        Some("it contains '='")
    } else if name.contains('\0') {
        Some("it contains a NUL character")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn host(pairs: &[(&str, &str)]) -> Vec<(OsString, OsString)> {
        pairs
            .iter()
            .map(|(n, v)| (OsString::from(n), OsString::from(v)))
            .collect()
    }

    fn names(env: &BTreeMap<OsString, OsString>) -> Vec<String> {
        env.iter()
            .map(|(n, v)| format!("{}={}", n.to_string_lossy(), v.to_string_lossy()))
            .collect()
    }

    #[test]
    fn the_child_gets_only_the_allow_list() {
        let host = host(&[
            ("PATH", "/host/bin"),
            ("HOME", "/home/me"),
            ("LANG", "C.UTF-8"),
            ("LC_ALL", "C"),
            ("TERM", "xterm"),
            ("TZ", "UTC"),
            ("USER", "me"),
            ("TMPDIR", "/var/tmp"),
            ("SMALLEBOT_DATABASE_URL", "postgres://u:secret@db/x"),
            ("OPENAI_API_KEY", "sk-1"),
            ("CANARY", "tweet"),
            ("GIT_AUTHOR_NAME", "Me"),
            ("XLC_FOO", "not a locale"),
        ]);
        let workspace = OsString::from("/home/me/.agents/workspace");
        let pass = ["GIT_AUTHOR_NAME".to_owned(), "NOT_SET".to_owned()];
        let set = BTreeMap::from([
            ("RUST_LOG".to_owned(), "debug".to_owned()),
            ("TZ".to_owned(), "Europe/Paris".to_owned()),
        ]);
        let fixed = [("HOME", workspace.as_os_str())];
        let empty = BTreeMap::new();
        // (rule, expected environment)
        let cases: [(ChildEnvRule<'_>, Vec<&str>); 4] = [
            (
                ChildEnvRule::default(),
                vec![
                    "HOME=/home/me",
                    "LANG=C.UTF-8",
                    "LC_ALL=C",
                    "PATH=/host/bin",
                    "TERM=xterm",
                    "TMPDIR=/var/tmp",
                    "TZ=UTC",
                    "USER=me",
                ],
            ),
            (
                ChildEnvRule {
                    pass: &pass,
                    fixed: &fixed,
                    set: &empty,
                },
                vec![
                    "GIT_AUTHOR_NAME=Me",
                    "HOME=/home/me/.agents/workspace",
                    "LANG=C.UTF-8",
                    "LC_ALL=C",
                    "PATH=/host/bin",
                    "TERM=xterm",
                    "TMPDIR=/var/tmp",
                    "TZ=UTC",
                    "USER=me",
                ],
            ),
            (
                ChildEnvRule {
                    pass: &[],
                    fixed: &[],
                    set: &set,
                },
                vec![
                    "HOME=/home/me",
                    "LANG=C.UTF-8",
                    "LC_ALL=C",
                    "PATH=/host/bin",
                    "RUST_LOG=debug",
                    "TERM=xterm",
                    "TMPDIR=/var/tmp",
                    "TZ=Europe/Paris",
                    "USER=me",
                ],
            ),
            // A key passed on purpose arrives.
            (
                ChildEnvRule {
                    pass: &["OPENAI_API_KEY".to_owned()],
                    fixed: &[],
                    set: &empty,
                },
                vec![
                    "HOME=/home/me",
                    "LANG=C.UTF-8",
                    "LC_ALL=C",
                    "OPENAI_API_KEY=sk-1",
                    "PATH=/host/bin",
                    "TERM=xterm",
                    "TMPDIR=/var/tmp",
                    "TZ=UTC",
                    "USER=me",
                ],
            ),
        ];
        for (rule, expected) in cases {
            assert_eq!(names(&child_environment(host.clone(), &rule)), expected);
        }
    }

    #[test]
    fn a_host_without_path_gives_the_default() {
        let env = child_environment(host(&[("CANARY", "x")]), &ChildEnvRule::default());
        assert_eq!(names(&env), [format!("PATH={DEFAULT_PATH}")]);
    }

    #[test]
    fn variable_names_are_checked() {
        let cases = [
            ("GOOD_NAME", None),
            ("", Some("it is empty")),
            ("A=B", Some("it contains '='")),
            ("A\0", Some("it contains a NUL character")),
        ];
        for (name, expected) in cases {
            assert_eq!(invalid_variable_name(name), expected, "{name:?}");
        }
    }
}
