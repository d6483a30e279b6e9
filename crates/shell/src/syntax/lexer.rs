//! A POSIX-shell tokenizer, good enough to judge commands (not to run them).
//!
//! It splits a script into words, control operators and redirections the way `sh`
//! does: single quotes, double quotes (with `\` escapes), `$'…'` ANSI-C quotes,
//! backslash escapes and line continuations; `#` comments; `;`, `&&`, `||`, `|`, `|&`,
//! `&`, newline, `(` and `)`; redirections (`>`, `>>`, `<`, `<<`, `<<-`, `<<<`, `>&`,
//! `<&`, `<>`, `>|`, `&>`, `&>>`, with an optional fd number) with their target, and
//! here-document bodies. Quotes are removed from word text. Command substitutions
//! (`$(…)`, backticks) and process substitutions (`<(…)`, `>(…)`) stay in the word
//! text as written and their inner scripts are recorded in [`Word::substitutions`];
//! `${…}` and `$((…))` are kept as written. [`Word::expands`] notes parameter and
//! arithmetic expansions and unquoted glob characters, so [`Word::is_literal`] can say
//! whether the text is the value the program will see.

use super::quoting;
use super::redirect::PendingHereDoc;

/// Why a script could not be tokenized.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub(crate) enum ParseError {
    /// A `'` or `"` quote is never closed.
    #[error("unterminated {quote} quote; close the quote")]
    UnterminatedQuote {
        /// The opening quote character.
        quote: char,
    },
    /// A `$(`, `` ` ``, `<(`, `>(`, `${` or `$((` is never closed.
    #[error("unterminated '{opening}'; close it")]
    UnterminatedSubstitution {
        /// How the construct was opened.
        opening: &'static str,
    },
    /// A redirection operator has no target word.
    #[error("redirection '{operator}' has no target")]
    MissingRedirectTarget {
        /// The operator as written.
        operator: &'static str,
    },
    /// Substitutions are nested deeper than the tokenizer follows.
    #[error("substitutions are nested too deeply (more than {limit} levels)")]
    TooDeep {
        /// The nesting limit.
        limit: usize,
    },
}

/// How deep `$( $( … ) )` may nest.
pub(super) const MAX_NESTING: usize = 24;

/// A redirection operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum RedirectOp {
    /// `<`
    Input,
    /// `>` or `>|`
    Output,
    /// `>>`
    Append,
    /// `<<` (`strip_tabs` for `<<-`)
    HereDoc {
        /// Whether leading tabs are stripped (`<<-`).
        strip_tabs: bool,
    },
    /// `<<<`
    HereString,
    /// `<&`
    DuplicateInput,
    /// `>&`
    DuplicateOutput,
    /// `<>`
    ReadWrite,
    /// `&>`
    OutputAll,
    /// `&>>`
    AppendAll,
}

impl RedirectOp {
    /// Whether the redirection may write to its target (a file or a device).
    #[must_use]
    pub(crate) fn writes(self) -> bool {
        matches!(
            self,
            Self::Output
                | Self::Append
                | Self::DuplicateOutput
                | Self::ReadWrite
                | Self::OutputAll
                | Self::AppendAll
        )
    }
}

/// Which kind of substitution a [`Substitution`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SubstitutionKind {
    /// `$(…)` or `` `…` ``: the output becomes text in the word.
    Command,
    /// `<(…)`: the word names a file to read the script's output from.
    ProcessInput,
    /// `>(…)`: the word names a file whose content is the script's input.
    ProcessOutput,
}

/// A script nested in a word, run by the shell before the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Substitution {
    /// Which kind of substitution.
    pub kind: SubstitutionKind,
    /// The inner script, as written (backtick escapes removed).
    pub script: String,
}

/// One shell word with its quotes removed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Word {
    /// The text with quotes and escapes removed; substitutions kept as written.
    pub text: String,
    /// Whether any part was quoted or escaped (no field splitting, no brace expansion).
    pub quoted: bool,
    /// Whether the shell changes part of the text when the command runs: a `$`
    /// parameter or arithmetic expansion (`$x`, `${x}`, `$((…))`, also inside double
    /// quotes) or an unquoted glob character (`*`, `?`, `[`). Substitutions are in
    /// [`substitutions`](Self::substitutions).
    pub expands: bool,
    /// The scripts of substitutions inside the word, in order.
    pub substitutions: Vec<Substitution>,
}

impl Word {
    /// Whether the text is exactly the value the program receives: no substitution,
    /// no `$` expansion and no unquoted glob character (quotes and escapes are fine,
    /// and so is `$'…'`).
    #[must_use]
    pub(crate) fn is_literal(&self) -> bool {
        !self.expands && self.substitutions.is_empty()
    }
}

/// A redirection with its target.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Redirect {
    /// The explicit file descriptor (`2` in `2>file`), if any.
    pub fd: Option<u32>,
    /// The operator.
    pub op: RedirectOp,
    /// The target word (the delimiter for a here-document).
    pub target: Word,
    /// The body of a here-document, once its lines have been read.
    pub heredoc_body: Option<String>,
}

/// A control operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Operator {
    /// `;` (also `;;` and `;&` in `case`)
    Semicolon,
    /// `&&`
    And,
    /// `||`
    Or,
    /// `|` or `|&`
    Pipe,
    /// `&`
    Background,
    /// A newline.
    Newline,
    /// `(`
    OpenParen,
    /// `)`
    CloseParen,
}

/// One token of a script.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Token {
    /// A word.
    Word(Word),
    /// A control operator.
    Operator(Operator),
    /// A redirection.
    Redirect(Redirect),
}

/// Splits `script` into tokens (see the module docs).
///
/// # Errors
/// A [`ParseError`] for unterminated quotes or substitutions, a redirection without a
/// target, or nesting deeper than [`MAX_NESTING`].
pub(crate) fn tokenize(script: &str) -> Result<Vec<Token>, ParseError> {
    let mut lexer = Lexer {
        chars: script.chars().collect(),
        pos: 0,
        depth: 0,
    };
    lexer.tokens(false)
}

/// The tokenizer's state: the script's chars and a cursor.
pub(super) struct Lexer {
    pub(super) chars: Vec<char>,
    pub(super) pos: usize,
    pub(super) depth: usize,
}

impl Lexer {
    pub(super) fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    pub(super) fn peek_at(&self, ahead: usize) -> Option<char> {
        self.chars.get(self.pos + ahead).copied()
    }

    pub(super) fn bump(&mut self) -> Option<char> {
        let c = self.peek()?;
        self.pos += 1;
        Some(c)
    }

    /// Reads tokens to the end, or (`inner`) to the `)` closing a substitution.
    pub(super) fn tokens(&mut self, inner: bool) -> Result<Vec<Token>, ParseError> {
        let mut tokens = Vec::new();
        let mut open_parens = 0usize;
        let mut heredocs: Vec<PendingHereDoc> = Vec::new();
        loop {
            self.skip_blanks();
            let Some(c) = self.peek() else {
                if inner {
                    return Err(ParseError::UnterminatedSubstitution { opening: "$(" });
                }
                return Ok(tokens);
            };
            let token = match c {
                '\n' => {
                    self.pos += 1;
                    self.read_heredoc_bodies(&mut tokens, &mut heredocs);
                    Token::Operator(Operator::Newline)
                }
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                    continue;
                }
                ';' => {
                    self.pos += 1;
                    if matches!(self.peek(), Some(';' | '&')) {
                        self.pos += 1;
                    }
                    Token::Operator(Operator::Semicolon)
                }
                '&' if self.peek_at(1) == Some('&') => self.operator(2, Operator::And),
                '&' if self.peek_at(1) == Some('>') => self.redirect(None)?,
                '&' => self.operator(1, Operator::Background),
                '|' if self.peek_at(1) == Some('|') => self.operator(2, Operator::Or),
                '|' if self.peek_at(1) == Some('&') => self.operator(2, Operator::Pipe),
                '|' => self.operator(1, Operator::Pipe),
                '(' => {
                    open_parens += 1;
                    self.operator(1, Operator::OpenParen)
                }
                ')' if inner && open_parens == 0 => {
                    self.pos += 1;
                    return Ok(tokens);
                }
                ')' => {
                    open_parens = open_parens.saturating_sub(1);
                    self.operator(1, Operator::CloseParen)
                }
                '<' | '>' if self.peek_at(1) == Some('(') => Token::Word(self.word()?),
                '<' | '>' => self.redirect(None)?,
                c if c.is_ascii_digit() => match self.fd_before_redirect() {
                    Some(fd) => self.redirect(Some(fd))?,
                    None => Token::Word(self.word()?),
                },
                _ => Token::Word(self.word()?),
            };
            if let Token::Redirect(Redirect {
                op: RedirectOp::HereDoc { strip_tabs },
                target,
                ..
            }) = &token
            {
                heredocs.push(PendingHereDoc {
                    token: tokens.len(),
                    delimiter: target.text.clone(),
                    strip_tabs: *strip_tabs,
                });
            }
            tokens.push(token);
        }
    }

    fn operator(&mut self, len: usize, op: Operator) -> Token {
        self.pos += len;
        Token::Operator(op)
    }

    /// Skips spaces, tabs and `\`-newline line continuations.
    pub(super) fn skip_blanks(&mut self) {
        loop {
            match self.peek() {
                Some(' ' | '\t' | '\r') => self.pos += 1,
                Some('\\') if self.peek_at(1) == Some('\n') => self.pos += 2,
                _ => return,
            }
        }
    }

    /// Reads one word, up to an unquoted blank or operator character.
    pub(super) fn word(&mut self) -> Result<Word, ParseError> {
        let mut word = Word::default();
        if let Some(opening @ ('<' | '>')) = self.peek() {
            let kind = if opening == '<' {
                SubstitutionKind::ProcessInput
            } else {
                SubstitutionKind::ProcessOutput
            };
            let start = self.pos;
            self.pos += 2;
            let script = self.inner_script()?;
            word.text.extend(&self.chars[start..self.pos]);
            word.substitutions.push(Substitution { kind, script });
        }
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>' => break,
                '\\' => {
                    self.pos += 1;
                    match self.bump() {
                        None => word.text.push('\\'),
                        Some('\n') => {}
                        Some(escaped) => {
                            word.text.push(escaped);
                            word.quoted = true;
                        }
                    }
                }
                '\'' => {
                    self.pos += 1;
                    word.quoted = true;
                    quoting::single_quoted(self, &mut word.text)?;
                }
                '"' => {
                    self.pos += 1;
                    word.quoted = true;
                    quoting::double_quoted(self, &mut word)?;
                }
                '`' => quoting::backtick(self, &mut word)?,
                '$' => quoting::dollar(self, &mut word, false)?,
                other => {
                    self.pos += 1;
                    word.expands |= matches!(other, '*' | '?' | '[');
                    word.text.push(other);
                }
            }
        }
        Ok(word)
    }

    /// Reads the script of a substitution whose opening (`$(`, `<(`) was consumed, up
    /// to and including its closing `)`, checking its quoting on the way.
    pub(super) fn inner_script(&mut self) -> Result<String, ParseError> {
        if self.depth >= MAX_NESTING {
            return Err(ParseError::TooDeep { limit: MAX_NESTING });
        }
        let start = self.pos;
        self.depth += 1;
        let result = self.tokens(true);
        self.depth -= 1;
        result?;
        let end = self.pos.saturating_sub(1).max(start);
        Ok(self.chars[start..end].iter().collect())
    }
}

#[cfg(test)]
#[path = "lexer_tests.rs"]
mod tests;
