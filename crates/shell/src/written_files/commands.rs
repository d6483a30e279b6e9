//! The programs whose arguments name files they write: `tee`, `touch`, `mkdir`,
//! `cp`/`mv`, `python`; and `cd`, which moves the working directory.

use super::{Found, path, python};
use crate::syntax::{RedirectOp, SimpleCommand, Word};

/// Non-option arguments; `with_value` lists options that consume the next word; `--`
/// ends the options.
pub(super) fn operands<'a>(args: &'a [Word], with_value: &[&str]) -> Vec<&'a Word> {
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

/// The word after the short `option` (e.g. the code of `-c`, also in a cluster like
/// `-uc`), or the rest of `-cCODE`; `None` once a non-option word is reached.
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
                ..arg.clone()
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
pub(super) fn copy_destinations(args: &[Word], cwd: Option<&str>, found: &mut Found) {
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
                ..arg.clone()
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
    if !dir.is_literal() {
        return;
    }
    for source in sources.into_iter().filter(|s| s.is_literal()) {
        let name = path::basename(&source.text);
        if !name.is_empty() && name != "." && name != ".." {
            found.add(cwd, &format!("{}/{name}", dir.text.trim_end_matches('/')));
        }
    }
}

/// The working directory after `cd args`: `None` when it cannot be known.
pub(super) fn change_directory(cwd: Option<&str>, args: &[Word]) -> Option<String> {
    let target = operands(args, &[]).into_iter().next();
    match target {
        None => Some("~".to_owned()),
        Some(word) if !word.is_literal() || word.text == "-" => None,
        Some(word) if path::is_absolute(&word.text) => Some(path::normalize(&word.text)),
        Some(word) => cwd.map(|cwd| path::resolve(cwd, &word.text)),
    }
}

/// Whether `program` is a Python interpreter (`python`, `python3`, `python3.12`, …).
pub(super) fn is_python(program: &str) -> bool {
    program == "python" || program.starts_with("python2") || program.starts_with("python3")
}

/// `python -c CODE` and here-documents fed to `python`: files the code opens for
/// writing.
pub(super) fn scan_python(
    command: &SimpleCommand,
    args: &[Word],
    cwd: Option<&str>,
    found: &mut Found,
) {
    let mut sources: Vec<(String, bool)> = Vec::new();
    if let Some(code) = option_value(args, "-c") {
        let literal = code.is_literal();
        sources.push((code.text, literal));
    }
    for redirect in &command.redirects {
        if let (RedirectOp::HereDoc { .. }, Some(body)) = (redirect.op, &redirect.heredoc_body) {
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
