//! Rust code coloured line by line from the tokens of rust-lang's own lexer
//! (`ra-ap-rustc_lexer`), not from a grammar: a line costs well under a microsecond
//! where syntect's grammar costs about ten, and Rust is the code this program shows
//! most. A line's colours are final when it ends; what carries from one line to the
//! next is only what it left open — a block comment (and its depth), a string or a raw
//! string — which is put back in front of the next line before it is lexed.
//!
//! The lexer gives exact token boundaries; what a word is comes from the text around
//! it, as a reader sees it: a keyword, a name before `(` (or after `fn`) a function,
//! before `!` a macro, a capitalised name a type (all capitals: a constant), and
//! attributes (`#[…]`) as one. The colours are the theme's own (base16-ocean dark), as
//! the grammars use for the other languages.

use rustc_lexer::{FrontmatterAllowed, LiteralKind, TokenKind};
use smallebot_terminal_text::escape_controls;

use crate::style::{Colour, Line, Look, palette_index, push_text};

/// What a line left open for the next.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
enum Open {
    #[default]
    Nothing,
    /// A block comment, nested this deep.
    Comment(usize),
    /// A string (`"`, `b"`, `c"`).
    Str,
    /// A raw string with this many `#`.
    Raw(usize),
}

/// What a token is shown as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Plain,
    Comment,
    Keyword,
    Str,
    Number,
    Function,
    Macro,
    Type,
    Constant,
    Lifetime,
    Attribute,
}

const KEYWORDS: &[&str] = &[
    "as", "async", "await", "break", "const", "continue", "crate", "dyn", "else", "enum", "extern",
    "fn", "for", "if", "impl", "in", "let", "loop", "match", "mod", "move", "mut", "pub", "ref",
    "return", "self", "Self", "static", "struct", "super", "trait", "type", "unsafe", "use",
    "where", "while", "yield", "try", "gen",
];

const PRIMITIVES: &[&str] = &[
    "u8", "u16", "u32", "u64", "u128", "usize", "i8", "i16", "i32", "i64", "i128", "isize", "f32",
    "f64", "bool", "char", "str",
];

/// The languages of a fence this module colours.
pub(crate) fn is_rust(language: &str) -> bool {
    ["rust", "rs"]
        .iter()
        .any(|name| language.eq_ignore_ascii_case(name))
}

/// One Rust code block being coloured, line after line.
#[derive(Debug, Default)]
pub(crate) struct RustLines {
    open: Open,
    /// The line being lexed, after what the line before left open.
    source: String,
    /// Its tokens: kind, start, end (bytes of `source`).
    tokens: Vec<(TokenKind, usize, usize)>,
}

impl RustLines {
    /// The next line (without its line break; tabs already expanded), coloured and
    /// escaped.
    pub(crate) fn line(&mut self, text: &str) -> Line {
        self.source.clear();
        match self.open {
            Open::Nothing => {}
            Open::Comment(depth) => (0..depth).for_each(|_| self.source.push_str("/*")),
            Open::Str => self.source.push('"'),
            Open::Raw(hashes) => {
                self.source.push('r');
                (0..hashes).for_each(|_| self.source.push('#'));
                self.source.push('"');
            }
        }
        let carried = self.source.len();
        self.source.push_str(text);
        self.source.push('\n');
        self.tokens.clear();
        let mut at = 0;
        for token in rustc_lexer::tokenize(&self.source, FrontmatterAllowed::No) {
            let end = at + token.len as usize;
            self.tokens.push((token.kind, at, end));
            at = end;
        }
        self.open = self.left_open();
        self.coloured(carried)
    }

    /// What the line's last token (the one holding its line break) leaves open.
    fn left_open(&self) -> Open {
        let Some(&(kind, start, end)) = self.tokens.last() else {
            return Open::Nothing;
        };
        let token = &self.source[start..end];
        match kind {
            TokenKind::BlockComment {
                terminated: false, ..
            } => {
                let depth = token
                    .matches("/*")
                    .count()
                    .saturating_sub(token.matches("*/").count());
                Open::Comment(depth.max(1))
            }
            TokenKind::Literal {
                kind:
                    LiteralKind::Str { terminated: false }
                    | LiteralKind::ByteStr { terminated: false }
                    | LiteralKind::CStr { terminated: false },
                ..
            } => Open::Str,
            // The lexer gives no count of `#` for a raw string it finds unterminated.
            TokenKind::Literal {
                kind:
                    LiteralKind::RawStr { .. }
                    | LiteralKind::RawByteStr { .. }
                    | LiteralKind::RawCStr { .. },
                ..
            } => {
                let hashes = token
                    .trim_start_matches(['b', 'c', 'r'])
                    .bytes()
                    .take_while(|&b| b == b'#')
                    .count();
                if raw_string_closed(token, hashes) {
                    Open::Nothing
                } else {
                    Open::Raw(hashes)
                }
            }
            _ => Open::Nothing,
        }
    }

    /// The line's tokens as coloured spans, without what was put in front of it
    /// (`carried` bytes) and without its line break.
    fn coloured(&self, carried: usize) -> Line {
        let last = self.source.len() - 1;
        let mut line = Line::new();
        let mut after_fn = false;
        // Inside `#[…]`: the depth of its brackets.
        let mut attribute: Option<usize> = None;
        for (index, &(kind, start, end)) in self.tokens.iter().enumerate() {
            let token = &self.source[start..end];
            let next = self.tokens[index + 1..]
                .iter()
                .map(|t| t.0)
                .find(|k| !matches!(k, TokenKind::Whitespace));
            if attribute.is_none() && starts_attribute(kind, next) {
                attribute = Some(0);
            }
            let shown = match attribute {
                Some(depth) => {
                    attribute = match kind {
                        TokenKind::OpenBracket => Some(depth + 1),
                        TokenKind::CloseBracket if depth <= 1 => None,
                        TokenKind::CloseBracket => Some(depth - 1),
                        _ => Some(depth),
                    };
                    Kind::Attribute
                }
                None => kind_of(kind, token, next, after_fn),
            };
            if kind != TokenKind::Whitespace {
                after_fn = kind == TokenKind::Ident && token == "fn";
            }
            let (from, to) = (start.max(carried), end.min(last));
            if let Some(text) = self.source.get(from..to).filter(|t| !t.is_empty()) {
                push_text(&mut line, &escape_controls(text), look(shown));
            }
        }
        line
    }
}

/// Whether `#` (or `#!`) followed by `next` starts an attribute.
fn starts_attribute(kind: TokenKind, next: Option<TokenKind>) -> bool {
    kind == TokenKind::Pound && matches!(next, Some(TokenKind::OpenBracket | TokenKind::Bang))
}

/// Whether a raw string token (opened with `hashes` `#`, its line break included when
/// it runs on) is closed on its line.
fn raw_string_closed(token: &str, hashes: usize) -> bool {
    let body = token.trim_end_matches('\n');
    let opened = body.find('"').map_or(body.len(), |quote| quote + 1);
    let closing = format!("\"{}", "#".repeat(hashes));
    body.len() >= opened + closing.len() && body[opened..].ends_with(&closing)
}

/// What a token outside an attribute is shown as.
fn kind_of(kind: TokenKind, token: &str, next: Option<TokenKind>, after_fn: bool) -> Kind {
    match kind {
        TokenKind::LineComment { .. } | TokenKind::BlockComment { .. } => Kind::Comment,
        TokenKind::Ident | TokenKind::RawIdent => word_kind(token, next, after_fn),
        TokenKind::Lifetime { .. } | TokenKind::RawLifetime => Kind::Lifetime,
        TokenKind::Literal {
            kind: LiteralKind::Int { .. } | LiteralKind::Float { .. },
            ..
        } => Kind::Number,
        TokenKind::Literal { .. } => Kind::Str,
        _ => Kind::Plain,
    }
}

/// What a word is, from the word and the token after it.
fn word_kind(word: &str, next: Option<TokenKind>, after_fn: bool) -> Kind {
    if KEYWORDS.contains(&word) {
        Kind::Keyword
    } else if word == "true" || word == "false" {
        Kind::Constant
    } else if next == Some(TokenKind::Bang) {
        Kind::Macro
    } else if after_fn || next == Some(TokenKind::OpenParen) {
        Kind::Function
    } else if PRIMITIVES.contains(&word) {
        Kind::Type
    } else if word.starts_with(|c: char| c.is_ascii_uppercase()) {
        let all_capitals = word.len() > 1
            && word
                .bytes()
                .all(|b| b.is_ascii_uppercase() || b.is_ascii_digit() || b == b'_');
        if all_capitals {
            Kind::Constant
        } else {
            Kind::Type
        }
    } else {
        Kind::Plain
    }
}

/// The theme's colour for `kind` (base16-ocean dark).
fn look(kind: Kind) -> Look {
    let (r, g, b) = match kind {
        Kind::Plain => (0xc0, 0xc5, 0xce),
        Kind::Comment => (0x65, 0x73, 0x7e),
        Kind::Keyword | Kind::Lifetime => (0xb4, 0x8e, 0xad),
        Kind::Str => (0xa3, 0xbe, 0x8c),
        Kind::Number | Kind::Constant => (0xd0, 0x87, 0x70),
        Kind::Function | Kind::Macro => (0x8f, 0xa1, 0xb3),
        Kind::Type => (0xeb, 0xcb, 0x8b),
        Kind::Attribute => (0x96, 0xb5, 0xb4),
    };
    Look {
        fg: Some(Colour::Palette(palette_index(r, g, b))),
        ..Look::PLAIN
    }
}

#[cfg(test)]
#[path = "rust_code_tests.rs"]
mod tests;
