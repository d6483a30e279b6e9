//! Groups shell tokens into simple commands, pipelines and function definitions.
//!
//! The structure is flattened: subshells `( … )`, groups `{ …; }` and compound commands
//! (`if`/`then`/`while`/`do`/`case`/…, whose reserved words are dropped when they start
//! a command) simply separate simple commands, so every command that could run appears
//! in [`Script::pipelines`]. A function definition (`name() { … }`, `name() ( … )`,
//! `function name { … }`) also lists its body in [`Script::functions`]; the body's
//! commands stay in the pipelines too.

use std::mem;

pub use super::shell_lexer::ParseError;
use super::shell_lexer::{Operator, Redirect, Token, Word, tokenize};

/// Reserved words skipped when they start a command.
const RESERVED_WORDS: &[&str] = &[
    "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case",
    "esac", "select",
];

/// One simple command: its words (program first) and its redirections.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SimpleCommand {
    /// The words, leading `NAME=value` assignments included.
    pub words: Vec<Word>,
    /// The redirections, in order.
    pub redirects: Vec<Redirect>,
}

impl SimpleCommand {
    /// Whether the command has neither words nor redirections.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.words.is_empty() && self.redirects.is_empty()
    }

    /// The words' texts (quotes removed), for display and tests.
    #[must_use]
    pub fn texts(&self) -> Vec<&str> {
        self.words.iter().map(|word| word.text.as_str()).collect()
    }
}

/// Simple commands joined by `|`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Pipeline {
    /// The stages, left to right.
    pub stages: Vec<SimpleCommand>,
    /// Whether the pipeline runs in the background (`&`).
    pub background: bool,
}

/// A shell function definition and the pipelines of its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FunctionDefinition {
    /// The function's name.
    pub name: String,
    /// The pipelines in its body.
    pub body: Vec<Pipeline>,
}

/// A parsed script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Script {
    /// Every pipeline, in order, nested ones included.
    pub pipelines: Vec<Pipeline>,
    /// The function definitions.
    pub functions: Vec<FunctionDefinition>,
}

/// Parses a script into pipelines and function definitions (see the module docs).
///
/// # Errors
/// The [`ParseError`] of the tokenizer.
///
/// ```
/// use smallebot_core::rules::shell_syntax::parse_script;
/// let script = parse_script("cd x && ls | wc -l").unwrap();
/// assert_eq!(script.pipelines.len(), 2);
/// assert_eq!(script.pipelines[1].stages.len(), 2);
/// ```
pub fn parse_script(source: &str) -> Result<Script, ParseError> {
    let tokens = tokenize(source)?;
    let mut builder = Builder::default();
    let mut tokens = tokens.into_iter().peekable();
    while let Some(token) = tokens.next() {
        match token {
            Token::Word(word) => builder.word(word),
            Token::Redirect(redirect) => builder.current.redirects.push(redirect),
            Token::Operator(Operator::Pipe) => builder.end_command(),
            Token::Operator(Operator::Background) => builder.end_pipeline(true),
            Token::Operator(
                Operator::Semicolon | Operator::And | Operator::Or | Operator::Newline,
            ) => builder.end_pipeline(false),
            Token::Operator(Operator::OpenParen) => {
                let empty_parens = tokens.peek() == Some(&Token::Operator(Operator::CloseParen));
                if empty_parens && builder.start_function_from_parens() {
                    tokens.next();
                } else {
                    builder.open_group();
                }
            }
            Token::Operator(Operator::CloseParen) => builder.close_group(),
        }
    }
    Ok(builder.finish())
}

/// Parses a script and returns all its simple commands in order, nested ones included
/// (the scripts of substitutions are in each word's `substitutions`).
///
/// # Errors
/// The [`ParseError`] of the tokenizer.
///
/// ```
/// use smallebot_core::rules::shell_syntax::parse_simple_commands;
/// let commands = parse_simple_commands("FOO=1 make -j4; (cd a && ls)").unwrap();
/// assert_eq!(commands[0].texts(), ["FOO=1", "make", "-j4"]);
/// assert_eq!(commands.len(), 3);
/// ```
pub fn parse_simple_commands(source: &str) -> Result<Vec<SimpleCommand>, ParseError> {
    let script = parse_script(source)?;
    Ok(script
        .pipelines
        .into_iter()
        .flat_map(|pipeline| pipeline.stages)
        .collect())
}

/// An open `(`/`{` group: the function it is the body of, and where its pipelines start.
struct Group {
    function: Option<String>,
    first_pipeline: usize,
}

/// Accumulates tokens into a [`Script`].
#[derive(Default)]
struct Builder {
    script: Script,
    stages: Vec<SimpleCommand>,
    current: SimpleCommand,
    groups: Vec<Group>,
    pending_function: Option<String>,
    expect_function_name: bool,
}

impl Builder {
    fn word(&mut self, word: Word) {
        if self.expect_function_name {
            self.expect_function_name = false;
            self.pending_function = Some(word.text);
            return;
        }
        if self.current.is_empty() && !word.quoted {
            match word.text.as_str() {
                "{" => return self.open_group(),
                "}" => return self.close_group(),
                "function" => {
                    self.expect_function_name = true;
                    return;
                }
                text if RESERVED_WORDS.contains(&text) => return,
                _ => {}
            }
        }
        self.pending_function = None;
        self.current.words.push(word);
    }

    /// On `()`: starts a function definition when the current command is one word (its
    /// name) or `function name` came before. Returns whether it did.
    fn start_function_from_parens(&mut self) -> bool {
        if self.pending_function.is_some() && self.current.is_empty() {
            return true;
        }
        if self.current.words.len() != 1 || !self.current.redirects.is_empty() {
            return false;
        }
        let name = mem::take(&mut self.current).words.remove(0).text;
        self.end_pipeline(false);
        self.pending_function = Some(name);
        true
    }

    fn end_command(&mut self) {
        if !self.current.is_empty() {
            self.stages.push(mem::take(&mut self.current));
        }
    }

    fn end_pipeline(&mut self, background: bool) {
        self.end_command();
        if !self.stages.is_empty() {
            let stages = mem::take(&mut self.stages);
            self.script.pipelines.push(Pipeline { stages, background });
        }
    }

    fn open_group(&mut self) {
        self.end_pipeline(false);
        self.groups.push(Group {
            function: self.pending_function.take(),
            first_pipeline: self.script.pipelines.len(),
        });
    }

    fn close_group(&mut self) {
        self.end_pipeline(false);
        if let Some(Group {
            function: Some(name),
            first_pipeline,
        }) = self.groups.pop()
        {
            let body = self.script.pipelines[first_pipeline..].to_vec();
            self.script
                .functions
                .push(FunctionDefinition { name, body });
        }
    }

    fn finish(mut self) -> Script {
        self.end_pipeline(false);
        while !self.groups.is_empty() {
            self.close_group();
        }
        self.script
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each pipeline as stages of word texts joined by spaces.
    fn shape(source: &str) -> Vec<Vec<String>> {
        parse_script(source)
            .unwrap()
            .pipelines
            .iter()
            .map(|p| p.stages.iter().map(|s| s.texts().join(" ")).collect())
            .collect()
    }

    #[test]
    fn pipelines_and_separators() {
        // (script, pipelines as stages)
        let cases: &[(&str, &[&[&str]])] = &[
            ("ls", &[&["ls"]]),
            ("ls -la | wc -l", &[&["ls -la", "wc -l"]]),
            (
                "a; b && c || d & e",
                &[&["a"], &["b"], &["c"], &["d"], &["e"]],
            ),
            ("a\nb", &[&["a"], &["b"]]),
            ("(cd x; ls) | cat", &[&["cd x"], &["ls"], &["cat"]]),
            ("{ rm x; }", &[&["rm x"]]),
            ("if true; then rm -rf /; fi", &[&["true"], &["rm -rf /"]]),
            ("while :; do echo do; done", &[&[":"], &["echo do"]]),
            (
                "for f in a b; do echo $f; done",
                &[&["f in a b"], &["echo $f"]],
            ),
            ("! grep x f", &[&["grep x f"]]),
            ("echo '{' }", &[&["echo { }"]]),
            ("", &[]),
            ("  ;; ", &[]),
        ];
        for &(source, expected) in cases {
            let expected: Vec<Vec<String>> = expected
                .iter()
                .map(|p| p.iter().map(|s| (*s).to_owned()).collect())
                .collect();
            assert_eq!(shape(source), expected, "{source:?}");
        }
    }

    #[test]
    fn background_flag() {
        let script = parse_script("sleep 1 | cat & ls").unwrap();
        let flags: Vec<bool> = script.pipelines.iter().map(|p| p.background).collect();
        assert_eq!(flags, [true, false]);
    }

    #[test]
    fn function_definitions() {
        // (script, function name, body pipelines as stage texts)
        let cases: &[(&str, &str, &[&[&str]])] = &[
            (":(){ :|:& };:", ":", &[&[":", ":"]]),
            ("bomb(){ bomb|bomb& };bomb", "bomb", &[&["bomb", "bomb"]]),
            ("f() ( ls; pwd )", "f", &[&["ls"], &["pwd"]]),
            ("function g { echo hi; }", "g", &[&["echo hi"]]),
            ("function h() { h | h & }", "h", &[&["h", "h"]]),
        ];
        for &(source, name, body) in cases {
            let script = parse_script(source).unwrap();
            let function = &script.functions[0];
            assert_eq!(function.name, name, "{source}");
            let got: Vec<Vec<String>> = function
                .body
                .iter()
                .map(|p| p.stages.iter().map(|s| s.texts().join(" ")).collect())
                .collect();
            assert_eq!(
                got,
                body.iter().map(|p| p.to_vec()).collect::<Vec<_>>(),
                "{source}"
            );
        }
    }

    #[test]
    fn simple_commands_keep_assignments_and_redirects() {
        let commands = parse_simple_commands("A=1 B=2 cmd x > out 2>&1").unwrap();
        assert_eq!(commands.len(), 1);
        assert_eq!(commands[0].texts(), ["A=1", "B=2", "cmd", "x"]);
        assert_eq!(commands[0].redirects.len(), 2);
        let only_redirect = parse_simple_commands("> /dev/sda").unwrap();
        assert!(only_redirect[0].words.is_empty());
    }

    #[test]
    fn errors_come_from_the_tokenizer() {
        assert!(parse_simple_commands("echo 'x").is_err());
        assert!(parse_script("echo $(ls").is_err());
    }
}
