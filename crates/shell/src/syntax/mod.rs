//! The one shell parser: a POSIX-`sh` tokenizer ([`lexer`], with [`quoting`] and
//! [`redirect`] for quotes, `$` forms, redirections and here-documents) and a parser
//! ([`parser`]) that groups the tokens into simple commands, pipelines and function
//! definitions.
//!
//! Good enough to judge commands, not to run them. Both readers of the
//! [crate](super) start here: the command policy walks [`Script`](parser::Script)s, written
//! file detection walks [`SimpleCommand`]s. Everything is crate-private.

mod lexer;
mod parser;
mod quoting;
mod redirect;

pub(crate) use lexer::{RedirectOp, SubstitutionKind, Token, Word, tokenize};
pub(crate) use parser::{
    FunctionDefinition, Pipeline, SimpleCommand, parse_script, parse_simple_commands,
};

/// Splits `NAME=value` into its parts when `NAME` is a valid variable name.
pub(crate) fn assignment(word: &str) -> Option<(&str, &str)> {
    let (name, value) = word.split_once('=')?;
    let mut chars = name.chars();
    let valid = chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_');
    valid.then_some((name, value))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn assignment_cases() {
        let cases: &[(&str, Option<(&str, &str)>)] = &[
            ("FOO=bar", Some(("FOO", "bar"))),
            ("_x1=", Some(("_x1", ""))),
            ("1x=y", None),
            ("a-b=c", None),
            ("=x", None),
            ("plain", None),
            ("of=/dev/sda", Some(("of", "/dev/sda"))),
        ];
        for &(word, expected) in cases {
            assert_eq!(assignment(word), expected, "{word}");
        }
    }
}
