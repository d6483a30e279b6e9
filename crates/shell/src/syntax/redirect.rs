//! Redirections for the [`lexer`](super::lexer): the operator, an optional fd number,
//! the target word, and here-document bodies read after the next newline.

use super::lexer::{Lexer, ParseError, Redirect, RedirectOp, Token};

/// A here-document waiting for its body: the token index, delimiter and `<<-` flag.
pub(super) struct PendingHereDoc {
    pub(super) token: usize,
    pub(super) delimiter: String,
    pub(super) strip_tabs: bool,
}

impl Redirect {
    /// Whether the redirection writes to a file: output redirections, and `>&` to a
    /// name rather than an fd (`2>&1`, `>&-`).
    pub(crate) fn writes_file(&self) -> bool {
        match self.op {
            RedirectOp::Output
            | RedirectOp::Append
            | RedirectOp::OutputAll
            | RedirectOp::AppendAll => true,
            RedirectOp::DuplicateOutput => {
                let target = self.target.text.trim_end_matches('-');
                !target.chars().all(|c| c.is_ascii_digit())
            }
            _ => false,
        }
    }
}

impl Lexer {
    /// When the cursor is on digits directly followed by `<` or `>`, consumes the
    /// digits and returns them as a file descriptor.
    pub(super) fn fd_before_redirect(&mut self) -> Option<u32> {
        let mut end = self.pos;
        while self.chars.get(end).is_some_and(char::is_ascii_digit) {
            end += 1;
        }
        if !matches!(self.chars.get(end), Some('<' | '>')) {
            return None;
        }
        let digits: String = self.chars[self.pos..end].iter().collect();
        let fd = digits.parse().ok()?;
        self.pos = end;
        Some(fd)
    }

    /// Reads a redirection operator and its target word.
    pub(super) fn redirect(&mut self, fd: Option<u32>) -> Result<Token, ParseError> {
        let rest: String = self.chars[self.pos..].iter().take(3).collect();
        let (symbol, op) = [
            ("&>>", RedirectOp::AppendAll),
            ("&>", RedirectOp::OutputAll),
            ("<<<", RedirectOp::HereString),
            ("<<-", RedirectOp::HereDoc { strip_tabs: true }),
            ("<<", RedirectOp::HereDoc { strip_tabs: false }),
            ("<&", RedirectOp::DuplicateInput),
            ("<>", RedirectOp::ReadWrite),
            ("<", RedirectOp::Input),
            (">>", RedirectOp::Append),
            (">&", RedirectOp::DuplicateOutput),
            (">|", RedirectOp::Output),
            (">", RedirectOp::Output),
        ]
        .into_iter()
        .find(|(symbol, _)| rest.starts_with(symbol))
        .unwrap_or((">", RedirectOp::Output));
        self.pos += symbol.chars().count();
        self.skip_blanks();
        let at_word = self
            .peek()
            .is_some_and(|c| !matches!(c, '\n' | ';' | '&' | '|' | '(' | ')' | '<' | '>'));
        if !at_word {
            return Err(ParseError::MissingRedirectTarget { operator: symbol });
        }
        let target = self.word()?;
        Ok(Token::Redirect(Redirect {
            fd,
            op,
            target,
            heredoc_body: None,
        }))
    }

    /// After a newline: reads the bodies of pending here-documents, line by line up to
    /// each delimiter (or the end of the script).
    pub(super) fn read_heredoc_bodies(
        &mut self,
        tokens: &mut [Token],
        pending: &mut Vec<PendingHereDoc>,
    ) {
        for heredoc in pending.drain(..) {
            let mut body = String::new();
            while self.peek().is_some() {
                let mut line = String::new();
                while let Some(c) = self.bump() {
                    if c == '\n' {
                        break;
                    }
                    line.push(c);
                }
                let compared = if heredoc.strip_tabs {
                    line.trim_start_matches('\t')
                } else {
                    line.as_str()
                };
                if compared == heredoc.delimiter {
                    break;
                }
                body.push_str(&line);
                body.push('\n');
            }
            if let Some(Token::Redirect(redirect)) = tokens.get_mut(heredoc.token) {
                redirect.heredoc_body = Some(body);
            }
        }
    }
}
