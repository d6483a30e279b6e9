//! A small shell tokenizer: enough of POSIX `sh` to find simple commands, their words
//! (quotes removed), the files they redirect output to, and their heredoc bodies.
//!
//! Handled: single quotes, double quotes with backslash escapes, backslash escapes and
//! line continuations, `$(…)`, `${…}` and backticks (kept as text, marking the word as
//! not literal), comments, the separators `;` `&&` `||` `|` `|&` `&` `(` `)` and newline,
//! and the redirections `>` `>>` `>|` `N>` `N>>` `&>` `&>>` `>&file` (writes), `N>&M`
//! `>&-` `<&N` (duplications, ignored), `<` `<>` `<<<` (reads, ignored) and heredocs
//! `<<EOF` `<<-EOF` `<<'EOF'`, whose body lines are taken out of the command stream.

/// A shell word after quote removal.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Word {
    /// The text with quotes and escapes removed.
    pub(super) text: String,
    /// False when the word holds an expansion (`$`, backtick) or an unquoted glob
    /// character, so its value at run time is not its text.
    pub(super) literal: bool,
}

/// A redirection that matters for file detection.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Redirect {
    /// Output written to this file (`>`, `>>`, `>|`, `&>`, `>&file`, with any fd).
    Write(Word),
    /// A heredoc's body (lines between the operator's line and the delimiter line).
    HereDoc(String),
}

/// One simple command: its words and redirections, in order.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(super) struct SimpleCommand {
    /// Words, command name first (assignments and keywords included).
    pub(super) words: Vec<Word>,
    /// Redirections that write files or carry heredoc bodies.
    pub(super) redirects: Vec<Redirect>,
}

/// Splits a script into its simple commands (empty ones dropped).
pub(super) fn parse(script: &str) -> Vec<SimpleCommand> {
    let mut lexer = Lexer {
        chars: script.chars().collect(),
        pos: 0,
        commands: vec![SimpleCommand::default()],
        pending: Vec::new(),
    };
    lexer.run();
    lexer
        .commands
        .into_iter()
        .filter(|c| !c.words.is_empty() || !c.redirects.is_empty())
        .collect()
}

/// A heredoc whose body starts after the current line.
struct PendingHereDoc {
    delimiter: String,
    strip_tabs: bool,
    command: usize,
    redirect: usize,
}

struct Lexer {
    chars: Vec<char>,
    pos: usize,
    /// Commands so far; the last one is open.
    commands: Vec<SimpleCommand>,
    pending: Vec<PendingHereDoc>,
}

fn ends_word(c: char) -> bool {
    matches!(
        c,
        ' ' | '\t' | '\r' | '\n' | ';' | '&' | '|' | '<' | '>' | '(' | ')'
    )
}

impl Lexer {
    fn peek(&self) -> Option<char> {
        self.chars.get(self.pos).copied()
    }

    fn peek_at(&self, offset: usize) -> Option<char> {
        self.chars.get(self.pos + offset).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        let matched = self.peek() == Some(c);
        if matched {
            self.pos += 1;
        }
        matched
    }

    fn current(&mut self) -> &mut SimpleCommand {
        if self.commands.is_empty() {
            self.commands.push(SimpleCommand::default());
        }
        let last = self.commands.len() - 1;
        &mut self.commands[last]
    }

    fn end_command(&mut self) {
        if self
            .commands
            .last()
            .is_some_and(|c| !c.words.is_empty() || !c.redirects.is_empty())
        {
            self.commands.push(SimpleCommand::default());
        }
    }

    fn run(&mut self) {
        while let Some(c) = self.peek() {
            match c {
                ' ' | '\t' | '\r' => self.pos += 1,
                '\\' if self.peek_at(1) == Some('\n') => self.pos += 2,
                '\n' => {
                    self.pos += 1;
                    self.end_command();
                    self.read_heredoc_bodies();
                }
                ';' | '(' | ')' => {
                    self.pos += 1;
                    self.end_command();
                }
                '|' => {
                    self.pos += 1;
                    let _ = self.eat('|') || self.eat('&');
                    self.end_command();
                }
                '&' if self.peek_at(1) == Some('>') => {
                    self.pos += 2;
                    self.eat('>');
                    self.write_target();
                }
                '&' => {
                    self.pos += 1;
                    self.eat('&');
                    self.end_command();
                }
                '>' => self.output_redirect(),
                '<' => self.input_redirect(),
                '#' => {
                    while self.peek().is_some_and(|c| c != '\n') {
                        self.pos += 1;
                    }
                }
                _ if c.is_ascii_digit() && self.fd_prefix_len().is_some() => {
                    self.pos += self.fd_prefix_len().unwrap_or(0);
                }
                _ => {
                    if let Some(word) = self.read_word() {
                        self.current().words.push(word);
                    }
                }
            }
        }
    }

    /// Length of a file-descriptor number directly followed by `>` or `<`.
    fn fd_prefix_len(&self) -> Option<usize> {
        let digits = self.chars[self.pos..]
            .iter()
            .take_while(|c| c.is_ascii_digit())
            .count();
        matches!(self.peek_at(digits), Some('>' | '<')).then_some(digits)
    }

    /// At `>`: `>`, `>>`, `>|`, `>&M` / `>&-` (ignored) or `>&file`.
    fn output_redirect(&mut self) {
        self.pos += 1;
        if self.eat('&') {
            self.skip_blanks();
            if let Some(target) = self.read_word()
                && !(target.text == "-"
                    || (!target.text.is_empty() && target.text.chars().all(|c| c.is_ascii_digit())))
            {
                self.current().redirects.push(Redirect::Write(target));
            }
            return;
        }
        let _ = self.eat('>') || self.eat('|');
        self.write_target();
    }

    /// At `<`: heredocs are registered; every other input redirection is skipped.
    fn input_redirect(&mut self) {
        self.pos += 1;
        if self.eat('<') {
            if self.eat('<') {
                self.skip_blanks();
                let _ = self.read_word();
                return;
            }
            let strip_tabs = self.eat('-');
            self.skip_blanks();
            if let Some(delimiter) = self.read_word() {
                let command = self.commands.len().saturating_sub(1);
                let current = self.current();
                current.redirects.push(Redirect::HereDoc(String::new()));
                let redirect = current.redirects.len() - 1;
                self.pending.push(PendingHereDoc {
                    delimiter: delimiter.text,
                    strip_tabs,
                    command,
                    redirect,
                });
            }
            return;
        }
        let _ = self.eat('&') || self.eat('>');
        self.skip_blanks();
        let _ = self.read_word();
    }

    fn write_target(&mut self) {
        self.skip_blanks();
        if let Some(target) = self.read_word() {
            self.current().redirects.push(Redirect::Write(target));
        }
    }

    fn skip_blanks(&mut self) {
        while matches!(self.peek(), Some(' ' | '\t')) {
            self.pos += 1;
        }
    }

    /// Reads the bodies of the heredocs opened on the line just ended.
    fn read_heredoc_bodies(&mut self) {
        for heredoc in std::mem::take(&mut self.pending) {
            let mut body = String::new();
            while self.pos < self.chars.len() {
                let end = self.chars[self.pos..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(self.chars.len(), |n| self.pos + n);
                let raw: String = self.chars[self.pos..end].iter().collect();
                self.pos = (end + 1).min(self.chars.len());
                let line = if heredoc.strip_tabs {
                    raw.trim_start_matches('\t')
                } else {
                    raw.as_str()
                };
                if line.trim_end_matches('\r') == heredoc.delimiter {
                    break;
                }
                body.push_str(line);
                body.push('\n');
            }
            if let Some(Redirect::HereDoc(slot)) = self
                .commands
                .get_mut(heredoc.command)
                .and_then(|c| c.redirects.get_mut(heredoc.redirect))
            {
                *slot = body;
            }
        }
    }

    /// Reads one word, removing quotes and escapes; `None` when no word starts here.
    fn read_word(&mut self) -> Option<Word> {
        let mut text = String::new();
        let mut literal = true;
        let mut started = false;
        while let Some(c) = self.peek() {
            if ends_word(c) {
                break;
            }
            started = true;
            self.pos += 1;
            match c {
                '\\' => match self.peek() {
                    Some('\n') => self.pos += 1,
                    Some(next) => {
                        text.push(next);
                        self.pos += 1;
                    }
                    None => text.push('\\'),
                },
                '\'' => {
                    while let Some(q) = self.peek() {
                        self.pos += 1;
                        if q == '\'' {
                            break;
                        }
                        text.push(q);
                    }
                }
                '"' => literal &= self.read_double_quoted(&mut text),
                '$' => {
                    literal = false;
                    text.push('$');
                    match self.peek() {
                        Some('(') => self.copy_balanced(&mut text, '(', ')'),
                        Some('{') => self.copy_balanced(&mut text, '{', '}'),
                        _ => {}
                    }
                }
                '`' => {
                    literal = false;
                    text.push('`');
                    self.copy_backticks(&mut text);
                }
                '*' | '?' | '[' => {
                    literal = false;
                    text.push(c);
                }
                _ => text.push(c),
            }
        }
        started.then_some(Word { text, literal })
    }

    /// After an opening `"`: reads to the closing quote; returns whether it was literal.
    fn read_double_quoted(&mut self, text: &mut String) -> bool {
        let mut literal = true;
        while let Some(c) = self.peek() {
            self.pos += 1;
            match c {
                '"' => break,
                '\\' => match self.peek() {
                    Some('\n') => self.pos += 1,
                    Some(next @ ('$' | '`' | '"' | '\\')) => {
                        text.push(next);
                        self.pos += 1;
                    }
                    _ => text.push('\\'),
                },
                '$' | '`' => {
                    literal = false;
                    text.push(c);
                    if c == '$' && self.peek() == Some('(') {
                        self.copy_balanced(text, '(', ')');
                    } else if c == '`' {
                        self.copy_backticks(text);
                    }
                }
                _ => text.push(c),
            }
        }
        literal
    }

    /// At `open`: copies text up to the matching `close`, skipping quoted parts.
    fn copy_balanced(&mut self, text: &mut String, open: char, close: char) {
        let mut depth = 0usize;
        let mut quote: Option<char> = None;
        while let Some(c) = self.peek() {
            self.pos += 1;
            text.push(c);
            match quote {
                Some(q) if c == q => quote = None,
                Some(_) => {}
                None if c == '\'' || c == '"' => quote = Some(c),
                None if c == open => depth += 1,
                None if c == close => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        return;
                    }
                }
                None => {}
            }
        }
    }

    /// After an opening backtick: copies text through the closing one.
    fn copy_backticks(&mut self, text: &mut String) {
        while let Some(c) = self.peek() {
            self.pos += 1;
            text.push(c);
            if c == '\\' {
                if let Some(next) = self.peek() {
                    text.push(next);
                    self.pos += 1;
                }
            } else if c == '`' {
                return;
            }
        }
    }
}

#[cfg(test)]
mod tests;
