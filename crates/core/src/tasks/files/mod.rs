//! Which files a finished tool call generated (DESIGN.md §6), decided from its
//! arguments alone — lexical path handling, no filesystem access.
//!
//! - `WriteFile`, `AppendFile`, `CreateDirectory`: the `path` argument.
//! - `ExecuteCommand` (`command`, optional `workingDirectory`): the command is tokenized
//!   like a shell script (private `shell` module) and each simple command yields
//!   output-redirection targets, `tee` files, `touch` files, `cp`/`mv` destinations,
//!   `mkdir` directories, files opened for writing by `python -c` code or a heredoc fed
//!   to `python` (private `python` module), and the same for `sh -c`/`bash -c` scripts;
//!   `cd` moves the working directory for the commands after it.
//!
//! Skipped: `/dev/…` targets, fd duplications (`2>&1`), words whose value depends on an
//! expansion or glob (`$OUT`, `*.txt`), and everything when the call failed.

mod path;
mod python;
mod shell;

use serde_json::Value;

use self::shell::{Redirect, SimpleCommand, Word};

/// How deep `sh -c '…'` scripts are followed.
const MAX_NESTING: usize = 3;

/// The files a finished tool call generated: absolute paths, or paths joined to
/// `working_directory` and normalized (`.` and `..` folded), de-duplicated in
/// first-seen order. Empty when `succeeded` is false or the tool writes no files.
#[must_use]
pub fn detect_generated_files(
    tool_name: &str,
    arguments: &Value,
    working_directory: &str,
    succeeded: bool,
) -> Vec<String> {
    let mut found = Found::default();
    if !succeeded {
        return found.paths;
    }
    match tool_name {
        "WriteFile" | "AppendFile" | "CreateDirectory" => {
            if let Some(target) = text_argument(arguments, "path") {
                found.add(Some(working_directory), target);
            }
        }
        "ExecuteCommand" => {
            let cwd = match text_argument(arguments, "workingDirectory") {
                Some(dir) => path::resolve(working_directory, dir),
                None => working_directory.to_owned(),
            };
            if let Some(command) = text_argument(arguments, "command") {
                scan_script(command, Some(cwd), &mut found, 0);
            }
        }
        _ => {}
    }
    found.paths
}

/// A non-blank string argument.
fn text_argument<'a>(arguments: &'a Value, name: &str) -> Option<&'a str> {
    arguments
        .get(name)
        .and_then(Value::as_str)
        .map(str::trim)
        .filter(|s| !s.is_empty())
}

/// Paths found so far, without duplicates.
#[derive(Default)]
struct Found {
    paths: Vec<String>,
}

impl Found {
    /// Adds `target` resolved against `cwd` (`None`: unknown, so only absolute paths).
    fn add(&mut self, cwd: Option<&str>, target: &str) {
        let target = target.trim();
        if target.is_empty()
            || target == "-"
            || target.starts_with("/dev/")
            || target.contains('\0')
        {
            return;
        }
        let resolved = match cwd {
            _ if path::is_absolute(target) => path::normalize(target),
            Some(cwd) => path::resolve(cwd, target),
            None => return,
        };
        if !self.paths.contains(&resolved) {
            self.paths.push(resolved);
        }
    }

    fn add_word(&mut self, cwd: Option<&str>, word: &Word) {
        if word.literal {
            self.add(cwd, &word.text);
        }
    }
}

/// Scans a shell script; `cwd` is `None` once a `cd` went somewhere unknown.
fn scan_script(script: &str, mut cwd: Option<String>, found: &mut Found, depth: usize) {
    for command in shell::parse(script) {
        for redirect in &command.redirects {
            if let Redirect::Write(target) = redirect {
                found.add_word(cwd.as_deref(), target);
            }
        }
        let words = strip_prefixes(&command.words);
        let Some((name, args)) = words.split_first() else {
            continue;
        };
        let cwd_ref = cwd.as_deref();
        match path::basename(&name.text) {
            "tee" => operands(args, &[])
                .iter()
                .for_each(|w| found.add_word(cwd_ref, w)),
            "touch" => operands(args, &["-d", "-t", "-r"])
                .iter()
                .for_each(|w| found.add_word(cwd_ref, w)),
            "mkdir" => operands(args, &["-m"])
                .iter()
                .for_each(|w| found.add_word(cwd_ref, w)),
            "cp" | "mv" => copy_destinations(args, cwd_ref, found),
            "cd" => cwd = change_directory(cwd.as_deref(), args),
            "sh" | "bash" | "zsh" | "dash" if depth < MAX_NESTING => {
                if let Some(inner) = option_value(args, "-c") {
                    scan_script(&inner.text, cwd.clone(), found, depth + 1);
                }
            }
            program if is_python(program) => scan_python(&command, args, cwd_ref, found),
            _ => {}
        }
    }
}

/// Drops leading assignments (`A=1`), keywords (`if`, `then`, `do`, `{`, `!`, …) and
/// wrappers (`sudo`, `env`, `nohup`, `time`, `command`, `exec`) with their options.
fn strip_prefixes(words: &[Word]) -> &[Word] {
    const SKIPPED: [&str; 16] = [
        "{", "!", "if", "then", "elif", "else", "while", "until", "do", "sudo", "env", "nohup",
        "time", "command", "exec", "nice",
    ];
    let mut rest = words;
    let mut after_wrapper = false;
    while let Some((first, tail)) = rest.split_first() {
        let text = first.text.as_str();
        let assignment = text.split_once('=').is_some_and(|(name, _)| {
            !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
        let option = after_wrapper && text.starts_with('-');
        if !(assignment || option || SKIPPED.contains(&text)) {
            break;
        }
        after_wrapper |= SKIPPED.contains(&text);
        rest = tail;
    }
    rest
}

/// Non-option arguments; `with_value` lists options that consume the next word; `--`
/// ends the options.
fn operands<'a>(args: &'a [Word], with_value: &[&str]) -> Vec<&'a Word> {
    let mut result = Vec::new();
    let mut options_done = false;
    let mut skip_next = false;
    for arg in args {
        if skip_next {
            skip_next = false;
        } else if options_done || !arg.text.starts_with('-') || arg.text == "-" {
            result.push(arg);
        } else if arg.text == "--" {
            options_done = true;
        } else {
            skip_next = with_value.contains(&arg.text.as_str());
        }
    }
    result
}

/// The word after the short `option` (e.g. the script of `-c`, also in a cluster like
/// `-lc`), or the rest of `-cSCRIPT`; `None` once a non-option word is reached.
fn option_value(args: &[Word], option: &str) -> Option<Word> {
    let letter = option.trim_start_matches('-');
    for (index, arg) in args.iter().enumerate() {
        let cluster = arg
            .text
            .strip_prefix('-')
            .filter(|f| !f.starts_with('-') && f.chars().all(|c| c.is_ascii_alphabetic()));
        if arg.text == option || cluster.is_some_and(|f| f.ends_with(letter)) {
            return args.get(index + 1).cloned();
        }
        if let Some(rest) = arg
            .text
            .strip_prefix(option)
            .filter(|r| !r.is_empty() && !arg.text.starts_with("--"))
        {
            return Some(Word {
                text: rest.to_owned(),
                literal: arg.literal,
            });
        }
        if !arg.text.starts_with('-') {
            return None;
        }
    }
    None
}

/// `cp`/`mv`: the destination (`-t DIR` / `--target-directory=DIR`, else the last
/// operand); a directory destination (`-t`, or ending in `/`) yields `dir/<source name>`.
fn copy_destinations(args: &[Word], cwd: Option<&str>, found: &mut Found) {
    let mut target_dir: Option<Word> = None;
    let mut sources: Vec<&Word> = Vec::new();
    let mut options_done = false;
    let mut iter = args.iter();
    while let Some(arg) = iter.next() {
        let text = arg.text.as_str();
        if options_done || !text.starts_with('-') || text == "-" {
            sources.push(arg);
        } else if text == "--" {
            options_done = true;
        } else if text == "-t" || text == "--target-directory" {
            target_dir = iter.next().cloned();
        } else if let Some(dir) = text.strip_prefix("--target-directory=") {
            target_dir = Some(Word {
                text: dir.to_owned(),
                literal: arg.literal,
            });
        } else if text == "-S" || text == "--suffix" {
            iter.next();
        }
    }
    let (dir, sources) = match target_dir {
        Some(dir) => (dir, sources),
        None => {
            let Some((last, rest)) = sources.split_last() else {
                return;
            };
            if rest.is_empty() {
                return;
            }
            if !last.text.ends_with('/') {
                found.add_word(cwd, last);
                return;
            }
            ((*last).clone(), rest.to_vec())
        }
    };
    if !dir.literal {
        return;
    }
    for source in sources.into_iter().filter(|s| s.literal) {
        let name = path::basename(&source.text);
        if !name.is_empty() && name != "." && name != ".." {
            found.add(cwd, &format!("{}/{name}", dir.text.trim_end_matches('/')));
        }
    }
}

/// The working directory after `cd args`: `None` when it cannot be known.
fn change_directory(cwd: Option<&str>, args: &[Word]) -> Option<String> {
    let target = operands(args, &[]).into_iter().next();
    match target {
        None => Some("~".to_owned()),
        Some(word) if !word.literal || word.text == "-" => None,
        Some(word) if path::is_absolute(&word.text) => Some(path::normalize(&word.text)),
        Some(word) => cwd.map(|cwd| path::resolve(cwd, &word.text)),
    }
}

fn is_python(program: &str) -> bool {
    program == "python" || program.starts_with("python2") || program.starts_with("python3")
}

/// `python -c CODE` and heredocs fed to `python`: files the code opens for writing.
fn scan_python(command: &SimpleCommand, args: &[Word], cwd: Option<&str>, found: &mut Found) {
    let mut sources: Vec<(String, bool)> = Vec::new();
    if let Some(code) = option_value(args, "-c") {
        sources.push((code.text, code.literal));
    }
    for redirect in &command.redirects {
        if let Redirect::HereDoc(body) = redirect {
            sources.push((body.clone(), true));
        }
    }
    for (code, literal) in sources {
        for file in python::files_opened_for_writing(&code) {
            if literal || !file.contains(['$', '`']) {
                found.add(cwd, &file);
            }
        }
    }
}

#[cfg(test)]
mod tests;
