//! Quoting and `$` forms for the [`lexer`](super::lexer): the parts of a word inside
//! `'…'`, `"…"`, `$'…'`, backticks, `$(…)`, `$((…))` and `${…}`.

use super::lexer::{Lexer, MAX_NESTING, ParseError, Substitution, SubstitutionKind, Word};

/// Reads the rest of a `'…'` quote (the opening quote was consumed).
pub(super) fn single_quoted(lexer: &mut Lexer, text: &mut String) -> Result<(), ParseError> {
    loop {
        match lexer.bump() {
            None => return Err(ParseError::UnterminatedQuote { quote: '\'' }),
            Some('\'') => return Ok(()),
            Some(c) => text.push(c),
        }
    }
}

/// Reads the rest of a `"…"` quote (the opening quote was consumed): `\` escapes only
/// `$`, `` ` ``, `"`, `\` and newline; `$` forms and backticks still apply.
pub(super) fn double_quoted(lexer: &mut Lexer, word: &mut Word) -> Result<(), ParseError> {
    loop {
        match lexer.peek() {
            None => return Err(ParseError::UnterminatedQuote { quote: '"' }),
            Some('"') => {
                lexer.pos += 1;
                return Ok(());
            }
            Some('\\') => {
                lexer.pos += 1;
                match lexer.bump() {
                    Some(c @ ('$' | '`' | '"' | '\\')) => word.text.push(c),
                    Some('\n') => {}
                    Some(c) => {
                        word.text.push('\\');
                        word.text.push(c);
                    }
                    None => return Err(ParseError::UnterminatedQuote { quote: '"' }),
                }
            }
            Some('`') => backtick(lexer, word)?,
            Some('$') => dollar(lexer, word, true)?,
            Some(c) => {
                lexer.pos += 1;
                word.text.push(c);
            }
        }
    }
}

/// Reads a `` `…` `` command substitution (the cursor is on the opening backtick).
pub(super) fn backtick(lexer: &mut Lexer, word: &mut Word) -> Result<(), ParseError> {
    let start = lexer.pos;
    lexer.pos += 1;
    let mut script = String::new();
    loop {
        match lexer.bump() {
            None => return Err(ParseError::UnterminatedSubstitution { opening: "`" }),
            Some('`') => break,
            Some('\\') => match lexer.bump() {
                Some(c @ ('`' | '\\' | '$')) => script.push(c),
                Some(c) => {
                    script.push('\\');
                    script.push(c);
                }
                None => return Err(ParseError::UnterminatedSubstitution { opening: "`" }),
            },
            Some(c) => script.push(c),
        }
    }
    word.text.extend(&lexer.chars[start..lexer.pos]);
    word.substitutions.push(Substitution {
        kind: SubstitutionKind::Command,
        script,
    });
    Ok(())
}

/// Reads a `$` form (the cursor is on the `$`): `$'…'` and `$"…"` (outside double
/// quotes), `$((…))`, `$(…)`, `${…}`, or a plain `$`.
pub(super) fn dollar(
    lexer: &mut Lexer,
    word: &mut Word,
    in_double_quotes: bool,
) -> Result<(), ParseError> {
    let start = lexer.pos;
    lexer.pos += 1;
    match lexer.peek() {
        Some('\'') if !in_double_quotes => {
            lexer.pos += 1;
            word.quoted = true;
            ansi_c_quoted(lexer, &mut word.text)
        }
        Some('"') if !in_double_quotes => {
            lexer.pos += 1;
            word.quoted = true;
            double_quoted(lexer, word)
        }
        Some('(') if lexer.peek_at(1) == Some('(') => {
            skip_balanced(lexer, '(', ')', "$((")?;
            word.text.extend(&lexer.chars[start..lexer.pos]);
            word.expands = true;
            Ok(())
        }
        Some('(') => {
            lexer.pos += 1;
            let script = lexer.inner_script()?;
            word.text.extend(&lexer.chars[start..lexer.pos]);
            word.substitutions.push(Substitution {
                kind: SubstitutionKind::Command,
                script,
            });
            Ok(())
        }
        Some('{') => {
            word.expands = true;
            braced_parameter(lexer, word, start)
        }
        next => {
            // `$name`, `$1` and the special parameters expand; a `$` before anything
            // else is itself.
            word.expands |= next.is_some_and(|c| {
                c.is_ascii_alphanumeric()
                    || matches!(c, '_' | '@' | '*' | '#' | '?' | '$' | '!' | '-')
            });
            word.text.push('$');
            Ok(())
        }
    }
}

/// Skips from an `open` char to its matching `close`, counting nesting.
fn skip_balanced(
    lexer: &mut Lexer,
    open: char,
    close: char,
    opening: &'static str,
) -> Result<(), ParseError> {
    let mut depth = 0usize;
    loop {
        match lexer.bump() {
            None => return Err(ParseError::UnterminatedSubstitution { opening }),
            Some(c) if c == open => depth += 1,
            Some(c) if c == close => {
                depth -= 1;
                if depth == 0 {
                    return Ok(());
                }
            }
            Some(_) => {}
        }
    }
}

/// Reads a `${…}` parameter expansion (kept as written), following quotes and
/// substitutions inside it so their scripts are recorded too.
fn braced_parameter(lexer: &mut Lexer, word: &mut Word, start: usize) -> Result<(), ParseError> {
    if lexer.depth >= MAX_NESTING {
        return Err(ParseError::TooDeep { limit: MAX_NESTING });
    }
    lexer.depth += 1;
    let result = braced_parameter_body(lexer, word, start);
    lexer.depth -= 1;
    result
}

fn braced_parameter_body(
    lexer: &mut Lexer,
    word: &mut Word,
    start: usize,
) -> Result<(), ParseError> {
    lexer.pos += 1;
    let mut depth = 1usize;
    let mut inner = Word::default();
    while depth > 0 {
        match lexer.peek() {
            None => return Err(ParseError::UnterminatedSubstitution { opening: "${" }),
            Some('{') => {
                depth += 1;
                lexer.pos += 1;
            }
            Some('}') => {
                depth -= 1;
                lexer.pos += 1;
            }
            Some('\\') => lexer.pos += 2,
            Some('\'') => {
                lexer.pos += 1;
                single_quoted(lexer, &mut inner.text)?;
            }
            Some('"') => {
                lexer.pos += 1;
                double_quoted(lexer, &mut inner)?;
            }
            Some('`') => backtick(lexer, &mut inner)?,
            Some('$') => dollar(lexer, &mut inner, false)?,
            Some(_) => lexer.pos += 1,
        }
    }
    let end = lexer.pos.min(lexer.chars.len());
    word.text.extend(&lexer.chars[start..end]);
    word.substitutions.append(&mut inner.substitutions);
    Ok(())
}

/// Reads the rest of a `$'…'` quote, decoding its backslash escapes.
fn ansi_c_quoted(lexer: &mut Lexer, text: &mut String) -> Result<(), ParseError> {
    loop {
        let c = match lexer.bump() {
            None => return Err(ParseError::UnterminatedQuote { quote: '\'' }),
            Some('\'') => return Ok(()),
            Some('\\') => match lexer.bump() {
                None => return Err(ParseError::UnterminatedQuote { quote: '\'' }),
                Some('n') => '\n',
                Some('t') => '\t',
                Some('r') => '\r',
                Some('a') => '\u{7}',
                Some('b') => '\u{8}',
                Some('e' | 'E') => '\u{1b}',
                Some('f') => '\u{c}',
                Some('v') => '\u{b}',
                Some('x') => numeric_escape(lexer, 16, 2),
                Some('u') => numeric_escape(lexer, 16, 4),
                Some('U') => numeric_escape(lexer, 16, 8),
                Some('0'..='7') => {
                    lexer.pos -= 1;
                    numeric_escape(lexer, 8, 3)
                }
                Some(other) => other,
            },
            Some(c) => c,
        };
        text.push(c);
    }
}

/// Reads up to `max_digits` digits in `radix` and returns the char they encode
/// (U+FFFD when there are none or the value is not a char).
fn numeric_escape(lexer: &mut Lexer, radix: u32, max_digits: usize) -> char {
    let mut value = 0u32;
    let mut digits = 0;
    while digits < max_digits {
        let Some(digit) = lexer.peek().and_then(|c| c.to_digit(radix)) else {
            break;
        };
        value = value * radix + digit;
        digits += 1;
        lexer.pos += 1;
    }
    if digits == 0 {
        return char::REPLACEMENT_CHARACTER;
    }
    char::from_u32(value).unwrap_or(char::REPLACEMENT_CHARACTER)
}
