//! Groups shell tokens into simple commands, pipelines and function definitions.
//!
//! The structure is flattened: subshells `( … )`, groups `{ …; }` and compound commands
//! (`if`/`then`/`while`/`do`/`case`/…, whose reserved words are dropped when they start
//! a command) simply separate simple commands, so every command that could run appears
//! in [`Script::pipelines`]. A function definition (`name() { … }`, `name() ( … )`,
//! `function name { … }`) also lists its body in [`Script::functions`]; the body's
//! commands stay in the pipelines too.

use std::mem;

use super::lexer::{Operator, ParseError, Redirect, Token, Word, tokenize};

/// Reserved words skipped when they start a command.
const RESERVED_WORDS: &[&str] = &[
    "!", "if", "then", "else", "elif", "fi", "do", "done", "while", "until", "for", "in", "case",
    "esac", "select",
];

/// One simple command: its words (program first) and its redirections.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SimpleCommand {
    /// The words, leading `NAME=value` assignments included.
    pub words: Vec<Word>,
    /// The redirections, in order.
    pub redirects: Vec<Redirect>,
}

impl SimpleCommand {
    /// Whether the command has neither words nor redirections.
    #[must_use]
    pub(crate) fn is_empty(&self) -> bool {
        self.words.is_empty() && self.redirects.is_empty()
    }

    /// The words' texts (quotes removed), for tests.
    #[cfg(test)]
    pub(crate) fn texts(&self) -> Vec<&str> {
        self.words.iter().map(|word| word.text.as_str()).collect()
    }
}

/// Simple commands joined by `|`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Pipeline {
    /// The stages, left to right.
    pub stages: Vec<SimpleCommand>,
    /// Whether the pipeline runs in the background (`&`).
    pub background: bool,
}

/// A shell function definition and the pipelines of its body.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FunctionDefinition {
    /// The function's name.
    pub name: String,
    /// The pipelines in its body.
    pub body: Vec<Pipeline>,
}

/// A parsed script.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Script {
    /// Every pipeline, in order, nested ones included.
    pub pipelines: Vec<Pipeline>,
    /// The function definitions.
    pub functions: Vec<FunctionDefinition>,
}

/// Parses a script into pipelines and function definitions (see the module docs).
///
/// # Errors
/// The [`ParseError`] of the tokenizer.
pub(crate) fn parse_script(source: &str) -> Result<Script, ParseError> {
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
pub(crate) fn parse_simple_commands(source: &str) -> Result<Vec<SimpleCommand>, ParseError> {
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
#[path = "parser_tests.rs"]
mod tests;
