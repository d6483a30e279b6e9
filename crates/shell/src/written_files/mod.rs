//! Which files a shell command line writes, read from the shared parse
//! ([`syntax`](super::syntax)) with lexical path handling and no filesystem access.
//!
//! Every simple command — those of nested scripts too: `sh -c`/`bash -c`, `eval`,
//! `su -c`, `watch`, `env -S`, a here-document or here-string fed to a shell, `$(…)`,
//! backticks and process substitutions — is unwrapped through the wrappers the policy
//! knows (`sudo`, `env`, `nice`, `nohup`, `time`, `command`, `exec`, `timeout`,
//! `stdbuf`, …, see [`wrappers`](super::wrappers)) and yields:
//!
//! - its output-redirection targets (`>`, `>>`, `>|`, `&>`, `&>>`, `>&file`, any fd);
//! - `tee` files, `touch` files and `mkdir` directories;
//! - `cp`/`mv` destinations: the last operand, or `dir/<source name>` for a directory
//!   destination (`-t DIR`, `--target-directory=DIR`, a last operand ending in `/`);
//! - files that `python -c` code or a here-document fed to `python` opens for writing
//!   ([`python`]).
//!
//! `cd` moves the working directory for the commands after it in the same script.
//!
//! Skipped: `/dev/…` targets, fd duplications (`2>&1`, `>&-`), words whose value depends
//! on an expansion or a glob (`$OUT`, `*.txt`, `"$(date).log"`), commands run by `xargs`
//! or `find -exec` (their arguments are completed at run time), scripts nested deeper
//! than the policy follows, and a script that does not parse. Paths are resolved
//! lexically against the working directory ([`path`]) and de-duplicated in first-seen
//! order.

mod commands;
mod path;
mod python;

use super::syntax::{RedirectOp, SimpleCommand, Word, parse_simple_commands};
use super::wrappers::{MAX_SCRIPT_DEPTH, Nested, basename, unwrap_command};

/// The files a shell command line writes (see the [crate](crate) docs).
#[must_use]
pub fn written_files(command: &str, working_directory: &str) -> Vec<String> {
    let mut found = Found::default();
    scan_script(command, Some(working_directory), &mut found, 0);
    found.paths
}

/// One path argument of a file tool resolved like [`written_files`] resolves its
/// targets (see the [crate](crate) docs).
#[must_use]
pub fn resolve_written_path(working_directory: &str, target: &str) -> Option<String> {
    resolve_target(Some(working_directory), target)
}

/// `target` resolved against `cwd` (`None`: unknown, so only absolute paths); `None`
/// for nothing, `-`, a device or a NUL.
fn resolve_target(cwd: Option<&str>, target: &str) -> Option<String> {
    let target = target.trim();
    if target.is_empty() || target == "-" || target.starts_with("/dev/") || target.contains('\0') {
        return None;
    }
    if path::is_absolute(target) {
        return Some(path::normalize(target));
    }
    cwd.map(|cwd| path::resolve(cwd, target))
}

/// Paths found so far, without duplicates.
#[derive(Default)]
struct Found {
    paths: Vec<String>,
}

impl Found {
    /// Adds `target` resolved against `cwd`.
    fn add(&mut self, cwd: Option<&str>, target: &str) {
        if let Some(resolved) = resolve_target(cwd, target)
            && !self.paths.contains(&resolved)
        {
            self.paths.push(resolved);
        }
    }

    /// Adds a word's text when it is literal.
    fn add_word(&mut self, cwd: Option<&str>, word: &Word) {
        if word.is_literal() {
            self.add(cwd, &word.text);
        }
    }
}

/// Scans a script run in `cwd` (`None` once a `cd` went somewhere unknown).
fn scan_script(script: &str, cwd: Option<&str>, found: &mut Found, depth: usize) {
    if depth > MAX_SCRIPT_DEPTH {
        return;
    }
    let Ok(commands) = parse_simple_commands(script) else {
        return;
    };
    let mut cwd = cwd.map(str::to_owned);
    for command in &commands {
        scan_command(command, &mut cwd, found, depth);
    }
}

/// Scans one simple command; a `cd` updates `cwd`.
fn scan_command(
    command: &SimpleCommand,
    cwd: &mut Option<String>,
    found: &mut Found,
    depth: usize,
) {
    let targets = command.redirects.iter().map(|r| &r.target);
    for word in command.words.iter().chain(targets) {
        for substitution in &word.substitutions {
            scan_script(&substitution.script, cwd.as_deref(), found, depth + 1);
        }
    }
    for redirect in command.redirects.iter().filter(|r| r.writes_file()) {
        found.add_word(cwd.as_deref(), &redirect.target);
    }
    let unwrapped = unwrap_command(&command.words, own_input(command).as_deref());
    for nested in &unwrapped.nested {
        if let Nested::Script(script) = nested {
            scan_script(script, cwd.as_deref(), found, depth + 1);
        }
    }
    // `xargs` completes its command's arguments at run time: they are templates.
    let via_xargs = unwrapped
        .chain
        .iter()
        .any(|level| level.first().is_some_and(|w| basename(&w.text) == "xargs"));
    let innermost = unwrapped.chain.last().filter(|_| !via_xargs);
    let Some((program, args)) = innermost.and_then(|words| words.split_first()) else {
        return;
    };
    let cwd_ref = cwd.as_deref();
    match basename(&program.text) {
        "tee" => commands::operands(args, &[])
            .into_iter()
            .for_each(|w| found.add_word(cwd_ref, w)),
        "touch" => commands::operands(args, &["-d", "-t", "-r"])
            .into_iter()
            .for_each(|w| found.add_word(cwd_ref, w)),
        "mkdir" => commands::operands(args, &["-m"])
            .into_iter()
            .for_each(|w| found.add_word(cwd_ref, w)),
        "cp" | "mv" => commands::copy_destinations(args, cwd_ref, found),
        "cd" => *cwd = commands::change_directory(cwd_ref, args),
        name if commands::is_python(name) => commands::scan_python(command, args, cwd_ref, found),
        _ => {}
    }
}

/// The text a command's own redirections put on its standard input: a here-document
/// body, or a literal here-string.
fn own_input(command: &SimpleCommand) -> Option<String> {
    command.redirects.iter().find_map(|r| match r.op {
        RedirectOp::HereDoc { .. } => r.heredoc_body.clone(),
        RedirectOp::HereString if r.target.is_literal() => Some(r.target.text.clone()),
        _ => None,
    })
}

#[cfg(test)]
mod robustness_tests;
#[cfg(test)]
mod tests;
