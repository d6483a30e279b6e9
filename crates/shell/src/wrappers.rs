//! Commands that run other commands, known to both readers of the [`shell`](super)
//! module: wrappers (`env`, `sudo`, `nice`, `timeout`, `xargs`, …) are unwrapped level
//! by level, and scripts handed to a shell (`sh -c`, `eval`, `su -c`, `watch`,
//! `env -S`, a shell reading a here-document or piped `echo`) or commands run by
//! `find -exec` are returned to be read on their own.
//!
//! The unwrapper works on any [`CommandWord`]: the policy's expanded texts (`String`)
//! or parsed [`Word`]s, which keep telling whether their text is literal.

use super::syntax::{Token, Word, assignment, tokenize};

/// How deep nested scripts (`sh -c`, `eval`, `$(…)`) are followed: the policy refuses
/// a command nested deeper, written-file detection stops looking there.
pub(crate) const MAX_SCRIPT_DEPTH: usize = 16;

/// How many wrapper levels are followed.
const MAX_LEVELS: usize = 16;

/// Programs that run a shell script given with `-c` (or read from stdin).
pub(crate) const SHELLS: &[&str] = &[
    "sh", "bash", "zsh", "dash", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh",
];

/// A wrapper: its name, the short options that take a value, the long options that
/// take a value (separated by spaces), and how many operands come before the wrapped
/// command.
struct Wrapper {
    name: &'static str,
    short_with_value: &'static str,
    long_with_value: &'static str,
    operands: usize,
}

const WRAPPERS: &[Wrapper] = &[
    wrapper("nice", "n", "adjustment", 0),
    wrapper("nohup", "", "", 0),
    wrapper("setsid", "", "", 0),
    wrapper("builtin", "", "", 0),
    wrapper("busybox", "", "", 0),
    wrapper("unbuffer", "", "", 0),
    wrapper("exec", "a", "", 0),
    wrapper("time", "fo", "format output", 0),
    wrapper("timeout", "sk", "signal kill-after", 1),
    wrapper("stdbuf", "ioe", "input output error", 0),
    wrapper("ionice", "cnpP", "class classdata pid pgid uid", 0),
    wrapper(
        "sudo",
        "ugCDhprtTUR",
        "user group close-from chdir host prompt role type",
        0,
    ),
    wrapper("doas", "uC", "", 0),
    wrapper("pkexec", "", "user", 0),
    wrapper(
        "xargs",
        "adEILnPs",
        "arg-file delimiter max-lines max-args max-procs max-chars",
        0,
    ),
];

const fn wrapper(
    name: &'static str,
    short_with_value: &'static str,
    long_with_value: &'static str,
    operands: usize,
) -> Wrapper {
    Wrapper {
        name,
        short_with_value,
        long_with_value,
        operands,
    }
}

/// A word the unwrapper can look through.
pub(crate) trait CommandWord: Clone {
    /// The word's text.
    fn text(&self) -> &str;
    /// A word split out of this one's text (`env -S 'tee out.txt'`).
    #[must_use]
    fn split_from(&self, text: String) -> Self;
    /// A word that is not written in the command (what `xargs` appends).
    fn made_up(text: String) -> Self;
}

impl CommandWord for String {
    fn text(&self) -> &str {
        self
    }

    fn split_from(&self, text: String) -> Self {
        text
    }

    fn made_up(text: String) -> Self {
        text
    }
}

impl CommandWord for Word {
    fn text(&self) -> &str {
        &self.text
    }

    /// Literal when this word is.
    fn split_from(&self, text: String) -> Self {
        Self {
            text,
            quoted: true,
            expands: !self.is_literal(),
            substitutions: Vec::new(),
        }
    }

    /// Never literal: its value is only known when the command runs.
    fn made_up(text: String) -> Self {
        Self {
            text,
            expands: true,
            ..Self::default()
        }
    }
}

/// Something nested in a command that is read on its own.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Nested<W> {
    /// A script run by a shell.
    Script(String),
    /// A command given as words (`find -exec`).
    Command(Vec<W>),
}

/// A command unwrapped: each level's words (the outermost first) and nested items.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Unwrapped<W> {
    /// The words of each level: `sudo rm -rf x`, then `rm -rf x`.
    pub(crate) chain: Vec<Vec<W>>,
    /// Scripts and commands to read on their own.
    pub(crate) nested: Vec<Nested<W>>,
    /// The `NAME=value` words dropped before a level's program (`FOO=1 git`,
    /// `env FOO=1 git`), in order.
    pub(crate) assignments: Vec<W>,
}

/// The texts of `words`.
fn texts<W: CommandWord>(words: &[W]) -> Vec<&str> {
    words.iter().map(W::text).collect()
}

/// The last `/`-separated part of a program path (`/bin/rm` → `rm`).
pub(crate) fn basename(word: &str) -> &str {
    word.rsplit('/').next().unwrap_or(word)
}

/// Unwraps a command (leading assignments dropped); `stdin` is text known to arrive
/// on its standard input (a here-document, or `echo` output piped in).
pub(crate) fn unwrap_command<W: CommandWord>(words: &[W], stdin: Option<&str>) -> Unwrapped<W> {
    let mut unwrapped = Unwrapped {
        chain: Vec::new(),
        nested: Vec::new(),
        assignments: Vec::new(),
    };
    let mut current = skip_assignments(words, &mut unwrapped.assignments);
    while !current.is_empty() && unwrapped.chain.len() < MAX_LEVELS {
        unwrapped.chain.push(current.clone());
        let all = texts(&current);
        let program = basename(all[0]).to_lowercase();
        let (args, arg_texts) = (&current[1..], &all[1..]);
        let inner = match program.as_str() {
            "env" => env_inner(args),
            "command" if arg_texts.iter().any(|a| *a == "-v" || *a == "-V") => Vec::new(),
            "command" => args[skip_options(arg_texts, "", "")..].to_vec(),
            "xargs" => xargs_inner(args, stdin),
            "find" => {
                unwrapped.nested.extend(find_exec_commands(args));
                Vec::new()
            }
            "eval" => {
                unwrapped.nested.push(Nested::Script(arg_texts.join(" ")));
                Vec::new()
            }
            "watch" => {
                let start = skip_options(arg_texts, "nd", "interval");
                unwrapped
                    .nested
                    .push(Nested::Script(arg_texts[start..].join(" ")));
                Vec::new()
            }
            "su" => {
                unwrapped
                    .nested
                    .extend(su_script(arg_texts).map(Nested::Script));
                Vec::new()
            }
            name if SHELLS.contains(&name) || all[0].contains(['$', '`']) => {
                unwrapped
                    .nested
                    .extend(shell_script(arg_texts, stdin).map(Nested::Script));
                Vec::new()
            }
            name => match WRAPPERS.iter().find(|w| w.name == name) {
                Some(w) => {
                    let start = skip_options(arg_texts, w.short_with_value, w.long_with_value);
                    args.get(start + w.operands..).unwrap_or_default().to_vec()
                }
                None => Vec::new(),
            },
        };
        current = skip_assignments(&inner, &mut unwrapped.assignments);
    }
    unwrapped
}

/// `words` without their leading assignments, which go to `assignments`.
fn skip_assignments<W: CommandWord>(words: &[W], assignments: &mut Vec<W>) -> Vec<W> {
    let start = words
        .iter()
        .position(|word| assignment(word.text()).is_none())
        .unwrap_or(words.len());
    assignments.extend_from_slice(&words[..start]);
    words[start..].to_vec()
}

/// How many words the option `arg` uses: 2 when its value is the next word, else 1.
fn option_width(arg: &str, short_with_value: &str, long_with_value: &str) -> usize {
    let takes_next = match arg.strip_prefix("--") {
        Some(long) => {
            !long.contains('=') && long_with_value.split_whitespace().any(|name| name == long)
        }
        // In a cluster, the first option taking a value takes the rest of the word,
        // or the next word when it is last.
        None => arg
            .chars()
            .skip(1)
            .position(|c| short_with_value.contains(c))
            .is_some_and(|at| at + 2 == arg.chars().count()),
    };
    if takes_next { 2 } else { 1 }
}

/// The index of the first operand after getopt-style options.
fn skip_options(args: &[&str], short_with_value: &str, long_with_value: &str) -> usize {
    let mut i = 0;
    while let Some(&arg) = args.get(i) {
        if arg == "--" {
            return i + 1;
        }
        if arg.len() < 2 || !arg.starts_with('-') {
            return i;
        }
        i += option_width(arg, short_with_value, long_with_value);
    }
    i.min(args.len())
}

/// `env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=value]… COMMAND…`
fn env_inner<W: CommandWord>(args: &[W]) -> Vec<W> {
    let arg_texts = texts(args);
    let mut i = 0;
    while let Some(&arg) = arg_texts.get(i) {
        if let Some((value, used)) = split_string_option(&arg_texts, i) {
            let origin = &args[i + used - 1];
            let mut words: Vec<W> = split_words(&value)
                .into_iter()
                .map(|word| origin.split_from(word))
                .collect();
            words.extend_from_slice(args.get(i + used..).unwrap_or_default());
            return words;
        }
        match arg {
            "--" => return args.get(i + 1..).unwrap_or_default().to_vec(),
            "-" => i += 1,
            option if option.starts_with('-') => {
                i += option_width(option, "uC", "unset chdir");
            }
            _ => break,
        }
    }
    args.get(i..).unwrap_or_default().to_vec()
}

/// The value of `env -S STRING` (or `-SSTRING`, `--split-string[=]STRING`) at
/// `args[i]`, and how many words it used.
fn split_string_option(args: &[&str], i: usize) -> Option<(String, usize)> {
    let arg = *args.get(i)?;
    match arg {
        "-S" | "--split-string" => args.get(i + 1).map(|value| ((*value).to_owned(), 2)),
        _ => arg
            .strip_prefix("--split-string=")
            .or_else(|| arg.strip_prefix("-S"))
            .map(|value| (value.to_owned(), 1)),
    }
}

/// Splits `env -S` text into words with the shell tokenizer (whitespace on error).
fn split_words(text: &str) -> Vec<String> {
    match tokenize(text) {
        Ok(tokens) => tokens
            .into_iter()
            .filter_map(|token| match token {
                Token::Word(word) => Some(word.text),
                _ => None,
            })
            .collect(),
        Err(_) => text.split_whitespace().map(str::to_owned).collect(),
    }
}

/// `xargs [options] [COMMAND…]`: the command with the known stdin words appended.
fn xargs_inner<W: CommandWord>(args: &[W], stdin: Option<&str>) -> Vec<W> {
    let start = WRAPPERS.iter().find(|w| w.name == "xargs").map_or(0, |w| {
        skip_options(&texts(args), w.short_with_value, w.long_with_value)
    });
    let mut inner = args.get(start..).unwrap_or_default().to_vec();
    if inner.is_empty() {
        inner.push(W::made_up("echo".to_owned()));
    }
    inner.extend(
        stdin
            .unwrap_or_default()
            .split_whitespace()
            .map(|word| W::made_up(word.to_owned())),
    );
    inner
}

/// The commands of `find … -exec CMD … ;` (also `-execdir`, `-ok`, `-okdir`, `+`).
fn find_exec_commands<W: CommandWord>(args: &[W]) -> Vec<Nested<W>> {
    let mut commands = Vec::new();
    let mut i = 0;
    while i < args.len() {
        if matches!(args[i].text(), "-exec" | "-execdir" | "-ok" | "-okdir") {
            let rest = &args[i + 1..];
            let end = rest
                .iter()
                .position(|a| a.text() == ";" || a.text() == "+")
                .unwrap_or(rest.len());
            commands.push(Nested::Command(rest[..end].to_vec()));
            i += end + 1;
        }
        i += 1;
    }
    commands
}

/// The script of `su -c SCRIPT` / `--command=SCRIPT`.
fn su_script(args: &[&str]) -> Option<String> {
    for (i, &arg) in args.iter().enumerate() {
        if arg == "-c" || arg == "--command" || arg == "--session-command" {
            return args.get(i + 1).map(|script| (*script).to_owned());
        }
        if let Some(value) = arg
            .strip_prefix("--command=")
            .or_else(|| arg.strip_prefix("--session-command="))
        {
            return Some(value.to_owned());
        }
        if let Some(value) = arg.strip_prefix("-c").filter(|v| !v.is_empty()) {
            return Some(value.to_owned());
        }
    }
    None
}

/// The script a shell runs: the operand after a `-c` option, or its standard input
/// when there is no script file (or with `-s`).
fn shell_script(args: &[&str], stdin: Option<&str>) -> Option<String> {
    let mut has_c = false;
    let mut reads_stdin = false;
    let mut i = 0;
    while let Some(&arg) = args.get(i) {
        if arg == "--" || arg == "-" {
            i += 1;
            break;
        }
        if let Some(long) = arg.strip_prefix("--") {
            i += if matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        if arg.len() < 2 || !arg.starts_with(['-', '+']) {
            break;
        }
        has_c |= arg.starts_with('-') && arg.contains('c');
        reads_stdin |= arg.starts_with('-') && arg.contains('s');
        i += if arg.contains(['o', 'O']) { 2 } else { 1 };
    }
    if has_c {
        return args.get(i).map(|script| (*script).to_owned());
    }
    if i >= args.len() || reads_stdin {
        return stdin.map(str::to_owned);
    }
    None
}

#[cfg(test)]
#[path = "wrappers_tests.rs"]
mod tests;
