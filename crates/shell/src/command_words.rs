//! The simple commands a command line runs, as normalized words: what permission rules
//! (`ExecuteCommand(git status)`, `ExecuteCommand(cargo test:*)`) are matched on.
//!
//! The line is read by the same parser and the same wrappers as the command policy:
//!
//! - it is split into simple commands at `;`, `&&`, `||`, `|`, `&`, newlines, `( … )`
//!   and `{ …; }`; the scripts of substitutions (`$(…)`, backticks, `<(…)`) are commands
//!   of their own;
//! - each command is unwrapped through the wrappers (`sudo`, `env`, `nice`, `timeout`,
//!   `xargs`, …): its [`words`](CommandWords::words) are the innermost level's, the
//!   levels around it are its [`wrappers`](CommandWords::wrappers), and the `NAME=value`
//!   words set for it (`FOO=1 git`, `env FOO=1 git`) its
//!   [`assignments`](CommandWords::assignments);
//! - a command that only runs a script (`bash -c '…'`, `eval`, `su -c`, `watch`, a shell
//!   fed a here-document, a here-string or piped `echo`) is replaced by the script's
//!   commands, which keep it among their wrappers; `find -exec` commands are commands
//!   of their own too;
//! - the program word is the basename, lowercased (`/usr/bin/curl` → `curl`);
//! - the files its output is redirected to are its [`redirects`](CommandWords::redirects)
//!   (a script's commands do not inherit those of the shell running it).
//!
//! A word whose value depends on an expansion (`$X`, `"$(date)"`, an unquoted `*`, what
//! `xargs` appends) stays as written and is not [`literal`](ShellWord::literal): a rule
//! must never match through it.
//!
//! ```
//! use smallebot_shell::command_words;
//! let commands = command_words("sudo bash -c 'git status'; rm -rf $DIR").unwrap();
//! let texts: Vec<Vec<&str>> = commands.iter().map(|c| c.texts()).collect();
//! assert_eq!(texts, [vec!["git", "status"], vec!["rm", "-rf", "$DIR"]]);
//! assert!(!commands[1].words[2].literal);
//! ```

use crate::piped_text::output_text;
use crate::syntax::{
    Pipeline, RedirectOp, SimpleCommand, Word, assignment, parse_script, parse_simple_commands,
};
use crate::wrappers::{MAX_SCRIPT_DEPTH, Nested, basename, unwrap_command};

/// One word of a command with its quotes removed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShellWord {
    /// The text (as written when it is not literal).
    pub text: String,
    /// Whether the text is exactly what the program receives: no expansion,
    /// substitution or unquoted glob character.
    pub literal: bool,
}

/// One simple command a command line runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CommandWords {
    /// The words of the command that runs, program first (never empty).
    pub words: Vec<ShellWord>,
    /// The `NAME=value` words set for it, in order.
    pub assignments: Vec<ShellWord>,
    /// The files its output redirections write to (`> out.txt`, `2>> log`, `&> all`),
    /// as written; `/dev/null` and fd duplications (`2>&1`) are left out.
    pub redirects: Vec<ShellWord>,
    /// The levels that run it, outermost first (`sudo nice git status` →
    /// `sudo nice git status`, `nice git status`; the commands of `bash -c '…'` have
    /// `bash -c '…'`). Each level's program word is normalized like [`Self::words`].
    pub wrappers: Vec<Vec<ShellWord>>,
}

impl CommandWords {
    /// The texts of [`Self::words`].
    #[must_use]
    pub fn texts(&self) -> Vec<&str> {
        self.words.iter().map(|word| word.text.as_str()).collect()
    }
}

/// Why a command line's commands cannot be listed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CommandWordsError {
    /// The line (or a script in it) is not valid shell syntax.
    #[error("could not parse `{script}`: {reason}")]
    Unparsable {
        /// The script that does not parse.
        script: String,
        /// What is wrong with it.
        reason: String,
    },
    /// Scripts are nested deeper than the policy follows.
    #[error(
        "scripts nested more than {MAX_SCRIPT_DEPTH} levels deep (sh -c, eval, $(…)) cannot be \
         read; run the inner command directly"
    )]
    TooDeep,
    /// Text meant as one simple command is not one (a rule's words).
    #[error(
        "`{text}` is not one simple command: write its words without `;`, `&&`, `||`, `|`, \
         `&`, redirections or substitutions"
    )]
    NotOneCommand {
        /// The text as given.
        text: String,
    },
}

/// The simple commands `line` runs, in order: each with its normalized words, the
/// wrappers it was found inside, its assignments and its output redirections.
///
/// # Errors
/// [`CommandWordsError::Unparsable`] for a line or nested script that does not parse,
/// [`CommandWordsError::TooDeep`] beyond the policy's nesting limit.
pub fn command_words(line: &str) -> Result<Vec<CommandWords>, CommandWordsError> {
    let mut reader = Reader::default();
    reader.script(line, &[], 0)?;
    Ok(reader.commands)
}

/// The words of `text` read as one simple command, without unwrapping anything: quotes
/// removed, the program word normalized like [`CommandWords::words`] (for the words of
/// a rule, such as `cargo test` in `ExecuteCommand(cargo test:*)`).
///
/// ```
/// use smallebot_shell::one_command_words;
/// let words = one_command_words("/usr/bin/Git 'log' -n 1").unwrap();
/// let texts: Vec<&str> = words.iter().map(|w| w.text.as_str()).collect();
/// assert_eq!(texts, ["git", "log", "-n", "1"]);
/// assert!(one_command_words("git status; rm x").is_err());
/// ```
///
/// # Errors
/// [`CommandWordsError::Unparsable`] for text that does not parse,
/// [`CommandWordsError::NotOneCommand`] for anything but one simple command without
/// redirections or substitutions (words may still be expansions: see
/// [`ShellWord::literal`]).
pub fn one_command_words(text: &str) -> Result<Vec<ShellWord>, CommandWordsError> {
    let commands = parse_simple_commands(text).map_err(|error| CommandWordsError::Unparsable {
        script: text.trim().to_owned(),
        reason: error.to_string(),
    })?;
    match commands.as_slice() {
        [command]
            if command.redirects.is_empty()
                && command.words.iter().all(|w| w.substitutions.is_empty()) =>
        {
            let program = command
                .words
                .iter()
                .position(|word| assignment(&word.text).is_none())
                .unwrap_or(command.words.len());
            let mut words: Vec<ShellWord> =
                command.words[..program].iter().map(shell_word).collect();
            words.extend(normalized(&command.words[program..]));
            Ok(words)
        }
        _ => Err(CommandWordsError::NotOneCommand {
            text: text.trim().to_owned(),
        }),
    }
}

/// Collects the commands of a line.
#[derive(Default)]
struct Reader {
    commands: Vec<CommandWords>,
}

impl Reader {
    /// Reads a script run inside the levels `outer`.
    fn script(
        &mut self,
        source: &str,
        outer: &[Vec<Word>],
        depth: usize,
    ) -> Result<(), CommandWordsError> {
        if depth > MAX_SCRIPT_DEPTH {
            return Err(CommandWordsError::TooDeep);
        }
        let script = parse_script(source).map_err(|error| CommandWordsError::Unparsable {
            script: source.trim().to_owned(),
            reason: error.to_string(),
        })?;
        for pipeline in &script.pipelines {
            self.pipeline(pipeline, outer, depth)?;
        }
        Ok(())
    }

    fn pipeline(
        &mut self,
        pipeline: &Pipeline,
        outer: &[Vec<Word>],
        depth: usize,
    ) -> Result<(), CommandWordsError> {
        let mut piped: Option<String> = None;
        for command in &pipeline.stages {
            piped = self.command(command, piped.take(), outer, depth)?;
        }
        Ok(())
    }

    /// Reads one simple command; returns the text it is known to write to its
    /// standard output.
    fn command(
        &mut self,
        command: &SimpleCommand,
        piped: Option<String>,
        outer: &[Vec<Word>],
        depth: usize,
    ) -> Result<Option<String>, CommandWordsError> {
        let targets = command.redirects.iter().map(|r| &r.target);
        for word in command.words.iter().chain(targets) {
            for substitution in &word.substitutions {
                self.script(&substitution.script, outer, depth + 1)?;
            }
        }
        let own_input = command.redirects.iter().find_map(|r| match r.op {
            RedirectOp::HereDoc { .. } => r.heredoc_body.clone(),
            RedirectOp::HereString => Some(r.target.text.clone()),
            _ => None,
        });
        let stdin = own_input.clone().or(piped);
        let redirects: Vec<ShellWord> = command
            .redirects
            .iter()
            .filter(|r| r.writes_file() && r.target.text != "/dev/null")
            .map(|r| shell_word(&r.target))
            .collect();
        let effective = self.words(&command.words, stdin.as_deref(), &redirects, outer, depth)?;
        let texts: Vec<String> = effective.iter().map(|w| w.text.clone()).collect();
        Ok(output_text(&texts, own_input))
    }

    /// Reads a command given as words, whose output goes to `redirects`; returns the
    /// innermost level's words.
    fn words(
        &mut self,
        words: &[Word],
        stdin: Option<&str>,
        redirects: &[ShellWord],
        outer: &[Vec<Word>],
        depth: usize,
    ) -> Result<Vec<Word>, CommandWordsError> {
        if depth > MAX_SCRIPT_DEPTH {
            return Err(CommandWordsError::TooDeep);
        }
        let unwrapped = unwrap_command(words, stdin);
        let Some((innermost, around)) = unwrapped.chain.split_last() else {
            return Ok(Vec::new());
        };
        let mut levels: Vec<Vec<Word>> = outer.to_vec();
        levels.extend(around.iter().cloned());
        let runs_script = unwrapped
            .nested
            .iter()
            .any(|nested| matches!(nested, Nested::Script(_)));
        if !runs_script {
            self.commands.push(CommandWords {
                words: normalized(innermost),
                assignments: unwrapped.assignments.iter().map(shell_word).collect(),
                redirects: redirects.to_vec(),
                wrappers: levels.iter().map(|level| normalized(level)).collect(),
            });
        }
        levels.push(innermost.clone());
        for nested in &unwrapped.nested {
            match nested {
                Nested::Script(script) => self.script(script, &levels, depth + 1)?,
                Nested::Command(words) => {
                    self.words(words, None, &[], &levels, depth + 1)?;
                }
            }
        }
        Ok(innermost.clone())
    }
}

/// The words with the program normalized: its basename, lowercased, when literal.
fn normalized(words: &[Word]) -> Vec<ShellWord> {
    let mut out: Vec<ShellWord> = words.iter().map(shell_word).collect();
    if let Some(program) = out.first_mut().filter(|word| word.literal) {
        program.text = basename(&program.text).to_lowercase();
    }
    out
}

fn shell_word(word: &Word) -> ShellWord {
    ShellWord {
        text: word.text.clone(),
        literal: word.is_literal(),
    }
}

#[cfg(test)]
#[path = "command_words_tests.rs"]
mod tests;
