//! A simple command normalized for rule matching: program basename, the set of flags,
//! the remaining arguments (paths normalized lexically) and the redirections.

use std::collections::BTreeSet;

use super::glob::has_glob_chars;
use crate::syntax::assignment;
use crate::wrappers::basename;

/// Long options mapped to a short flag: (program, long name, shortest accepted
/// abbreviation, flag). GNU tools accept unambiguous abbreviations (`--rec`).
const LONG_FLAG_ALIASES: &[(&str, &str, usize, char)] = &[
    ("rm", "recursive", 1, 'r'),
    ("rm", "force", 1, 'f'),
    ("chmod", "recursive", 3, 'R'),
    ("chown", "recursive", 3, 'R'),
    ("chgrp", "recursive", 3, 'R'),
];

/// Short flags that mean the same as another: (program, flag, canonical flag).
const SHORT_FLAG_ALIASES: &[(&str, char, char)] = &[("rm", 'R', 'r')];

/// One argument: its normalized text and, after a `cd`, the path it resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Arg {
    /// The normalized text (`//` → `/`, `/tmp/..` → `/`, `~/*` → `~`).
    pub(super) text: String,
    /// The text joined to the directory `cd` moved to, when it is relative.
    pub(super) resolved: Option<String>,
    /// Whether the text contains glob characters (computed once: words may be long).
    pub(super) is_glob: bool,
}

impl Arg {
    /// Normalizes `text`, resolving it against `cwd` when given.
    pub(super) fn new(text: &str, cwd: Option<&str>) -> Self {
        let resolved = cwd.and_then(|cwd| resolve(cwd, text));
        Self {
            text: normalize_arg(text),
            resolved,
            is_glob: has_glob_chars(text),
        }
    }

    /// Both forms to match against.
    pub(super) fn forms(&self) -> impl Iterator<Item = &str> {
        std::iter::once(self.text.as_str()).chain(self.resolved.as_deref())
    }
}

/// A redirection: whether it writes, and its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RedirectTarget {
    /// Whether the redirection writes to the target.
    pub(super) writes: bool,
    /// The target.
    pub(super) target: Arg,
}

/// A normalized simple command (or rule pattern).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct Invocation {
    /// The program's basename, lowercased; `None` for a command of redirections only.
    pub(super) program: Option<String>,
    /// Whether the program contains glob characters (`/???/r?`).
    pub(super) program_is_glob: bool,
    /// Short flags (`-rf`, `-r -f`, `--recursive` for rm).
    pub(super) flags: BTreeSet<char>,
    /// Long flags without their `--` and `=value`.
    pub(super) long_flags: BTreeSet<String>,
    /// The other arguments, in order.
    pub(super) args: Vec<Arg>,
    /// The redirections.
    pub(super) redirects: Vec<RedirectTarget>,
    /// The command as shown in a refusal.
    pub(super) display: String,
}

impl Invocation {
    /// Normalizes expanded `words` (program first) with their redirections; relative
    /// arguments are also resolved against `cwd` when a `cd` moved there.
    pub(super) fn new(words: &[String], redirects: &[RedirectTarget], cwd: Option<&str>) -> Self {
        let program = words.first().map(|word| basename(word).to_lowercase());
        let name = program.as_deref().unwrap_or("");
        let mut shown = display(words, redirects);
        if let Some(cwd) = cwd {
            shown = format!("{shown} (after cd {cwd})");
        }
        let mut invocation = Self {
            display: shown,
            redirects: redirects.to_vec(),
            ..Self::default()
        };
        let mut options_done = false;
        for word in words.iter().skip(1) {
            if options_done || word == "-" || !word.starts_with('-') {
                invocation.args.push(Arg::new(word, cwd));
            } else if word == "--" {
                options_done = true;
            } else if let Some(long) = word.strip_prefix("--") {
                let long = long.split_once('=').map_or(long, |(name, _)| name);
                match long_alias(name, long) {
                    Some(flag) => invocation.flags.insert(flag),
                    None => invocation.long_flags.insert(long.to_owned()),
                };
            } else {
                for flag in word.chars().skip(1) {
                    invocation.flags.insert(short_alias(name, flag));
                }
            }
        }
        invocation.program_is_glob = program.as_deref().is_some_and(has_glob_chars);
        invocation.program = program;
        invocation
    }
}

/// The text shown for a command: its words and redirections.
fn display(words: &[String], redirects: &[RedirectTarget]) -> String {
    let mut parts: Vec<String> = words.to_vec();
    for redirect in redirects {
        let symbol = if redirect.writes { ">" } else { "<" };
        parts.push(format!("{symbol} {}", redirect.target.text));
    }
    parts.join(" ")
}

fn long_alias(program: &str, long: &str) -> Option<char> {
    LONG_FLAG_ALIASES
        .iter()
        .find(|(p, name, min, _)| *p == program && long.len() >= *min && name.starts_with(long))
        .map(|&(_, _, _, flag)| flag)
}

fn short_alias(program: &str, flag: char) -> char {
    SHORT_FLAG_ALIASES
        .iter()
        .find(|(p, from, _)| *p == program && *from == flag)
        .map_or(flag, |&(_, _, to)| to)
}

/// Normalizes an argument: `NAME=value` has its value normalized as a path, anything
/// else is normalized as a path; options stay as they are.
pub(super) fn normalize_arg(text: &str) -> String {
    if text.starts_with('-') {
        return text.to_owned();
    }
    match assignment(text) {
        Some((name, value)) => format!("{name}={}", normalize_path(value)),
        None => normalize_path(text),
    }
}

/// Joins a relative argument (or the value of `NAME=value`) to `cwd`.
fn resolve(cwd: &str, text: &str) -> Option<String> {
    if text.starts_with('-') {
        return None;
    }
    let (prefix, value) = match assignment(text) {
        Some((name, value)) => (format!("{name}="), value),
        None => (String::new(), text),
    };
    if value.is_empty() || value.starts_with(['/', '~']) {
        return None;
    }
    Some(format!(
        "{prefix}{}",
        normalize_path(&format!("{cwd}/{value}"))
    ))
}

/// Normalizes a path lexically: repeated `/` and `.` components go, `..` removes the
/// previous component (and stays at `/`), a trailing `/`, and a last component made of
/// `*`/`?` after a `/` (`/*`, `~/*`) stands for the directory itself.
pub(super) fn normalize_path(path: &str) -> String {
    if path.is_empty() {
        return String::new();
    }
    let (root, rest) = if path == "~" {
        ("~", "")
    } else if let Some(rest) = path.strip_prefix("~/") {
        ("~", rest)
    } else if let Some(rest) = path.strip_prefix('/') {
        ("/", rest)
    } else {
        ("", path)
    };
    let mut parts: Vec<&str> = Vec::new();
    for component in rest.split('/') {
        match component {
            "" | "." => {}
            ".." if parts.last().is_some_and(|last| *last != "..") => {
                parts.pop();
            }
            ".." if root == "/" => {}
            other => parts.push(other),
        }
    }
    let all_wildcards = |c: &str| c.contains('*') && c.chars().all(|ch| ch == '*' || ch == '?');
    if path.contains('/') && parts.last().is_some_and(|c| all_wildcards(c)) {
        parts.pop();
    }
    match (root, parts.is_empty()) {
        ("/", _) => format!("/{}", parts.join("/")),
        ("~", true) => "~".to_owned(),
        ("~", false) => format!("~/{}", parts.join("/")),
        (_, true) => ".".to_owned(),
        (_, false) => parts.join("/"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str) -> Vec<String> {
        text.split_whitespace().map(str::to_owned).collect()
    }

    #[test]
    fn path_normalization() {
        let cases: &[(&str, &str)] = &[
            ("/", "/"),
            ("//", "/"),
            ("///etc//", "/etc"),
            ("/.", "/"),
            ("/./", "/"),
            ("/..", "/"),
            ("/tmp/..", "/"),
            ("/tmp/../etc/.", "/etc"),
            ("/*", "/"),
            ("/**", "/"),
            ("/*/", "/"),
            ("~", "~"),
            ("~/", "~"),
            ("~/.", "~"),
            ("~/*", "~"),
            ("~/a/..", "~"),
            ("..", ".."),
            ("../", ".."),
            ("../*", ".."),
            ("a/../..", ".."),
            ("./*", "."),
            ("*", "*"),
            ("*.txt", "*.txt"),
            ("build", "build"),
            ("./build/", "build"),
            ("", ""),
        ];
        for &(path, expected) in cases {
            assert_eq!(normalize_path(path), expected, "{path:?}");
        }
    }

    /// (words, program, flags, long flags, args)
    type FlagCase = (
        &'static str,
        &'static str,
        &'static str,
        &'static [&'static str],
        &'static [&'static str],
    );

    #[test]
    fn flags_and_args() {
        let cases: &[FlagCase] = &[
            ("rm -rf /", "rm", "fr", &[], &["/"]),
            ("rm -fr //", "rm", "fr", &[], &["/"]),
            ("rm -r -f /", "rm", "fr", &[], &["/"]),
            ("rm -Rf /", "rm", "fr", &[], &["/"]),
            ("rm --recursive --force /", "rm", "fr", &[], &["/"]),
            (
                "rm --rec --f --no-preserve-root /",
                "rm",
                "fr",
                &["no-preserve-root"],
                &["/"],
            ),
            ("/bin/RM -rf -- -x", "rm", "fr", &[], &["-x"]),
            ("chmod 777 -R /", "chmod", "R", &[], &["777", "/"]),
            ("chmod --recursive a+w /", "chmod", "R", &[], &["a+w", "/"]),
            ("chmod -r x", "chmod", "r", &[], &["x"]),
            (
                "dd if=/dev/zero of=//dev//sda",
                "dd",
                "",
                &[],
                &["if=/dev/zero", "of=/dev/sda"],
            ),
            ("cat -", "cat", "", &[], &["-"]),
        ];
        for &(text, program, flags, long, args) in cases {
            let invocation = Invocation::new(&words(text), &[], None);
            assert_eq!(invocation.program.as_deref(), Some(program), "{text}");
            assert_eq!(invocation.flags.iter().collect::<String>(), flags, "{text}");
            assert_eq!(
                invocation.long_flags.iter().collect::<Vec<_>>(),
                long,
                "{text}"
            );
            let got: Vec<&str> = invocation.args.iter().map(|a| a.text.as_str()).collect();
            assert_eq!(got, args, "{text}");
        }
    }

    #[test]
    fn resolution_against_cd() {
        // (cwd, arg, resolved)
        let cases: &[(&str, &str, Option<&str>)] = &[
            ("/", "*", Some("/")),
            ("/", "./*", Some("/")),
            ("/tmp", "..", Some("/")),
            ("/dev", "of=sda", Some("of=/dev/sda")),
            ("..", "*", Some("..")),
            ("build", "*", Some("build")),
            ("/", "/x", None),
            ("/", "-rf", None),
            ("/", "~", None),
        ];
        for &(cwd, arg, expected) in cases {
            assert_eq!(
                Arg::new(arg, Some(cwd)).resolved.as_deref(),
                expected,
                "{cwd} {arg}"
            );
        }
    }
}
