//! Word expansion as far as it can be done without running anything: brace expansion,
//! variables assigned earlier in the same script, `$HOME` (as `~`) and `$IFS` (as a
//! space), then field splitting of unquoted words that changed.

use std::collections::BTreeMap;

use crate::syntax::Word;

/// The most words one brace expansion may produce.
const MAX_BRACE_WORDS: usize = 256;

/// The most brace groups expanded in one word.
const MAX_BRACE_GROUPS: usize = 8;

/// Roughly how many bytes one brace expansion may produce; long words get fewer
/// groups expanded (but always the first).
const MAX_BRACE_BYTES: usize = 1 << 20;

/// What is known while checking a script: variables assigned so far and the
/// directory `cd` moved to (`None`: the starting directory, or unknown).
#[derive(Debug, Clone, Default)]
pub(super) struct ShellState {
    /// Variables assigned earlier in the script.
    pub(super) vars: BTreeMap<String, String>,
    /// The directory `cd` moved to, normalized.
    pub(super) cwd: Option<String>,
}

/// Expands words into the words the shell would pass (see the module docs).
pub(super) fn expand_words(words: &[Word], state: &ShellState) -> Vec<String> {
    words
        .iter()
        .flat_map(|word| expand_word(word, state))
        .collect()
}

/// Expands one word.
pub(super) fn expand_word(word: &Word, state: &ShellState) -> Vec<String> {
    let pieces = if word.quoted {
        vec![word.text.clone()]
    } else {
        brace_expand(&word.text)
    };
    let mut out = Vec::new();
    for piece in pieces {
        let (text, changed) = substitute(&piece, state);
        if changed && !word.quoted {
            out.extend(text.split_whitespace().map(str::to_owned));
        } else {
            out.push(text);
        }
    }
    out
}

/// The value of a variable: assigned in the script, or `HOME` (`~`) and `IFS` (space).
fn lookup<'a>(name: &str, state: &'a ShellState) -> Option<&'a str> {
    match state.vars.get(name) {
        Some(value) => Some(value),
        None if name == "HOME" => Some("~"),
        None if name == "IFS" => Some(" "),
        None => None,
    }
}

/// Replaces `$NAME` and `${NAME…}` whose value is known; returns the text and whether
/// anything was replaced. `${NAME:-word}` (and `-`, `:=`, `=`) gives `word` when `NAME`
/// is unknown; other operators are approximated by the plain value.
pub(super) fn substitute(text: &str, state: &ShellState) -> (String, bool) {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::new();
    let mut changed = false;
    let mut i = 0;
    while i < chars.len() {
        if chars[i] != '$' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        if chars.get(i + 1) == Some(&'{') {
            let Some(close) = matching_brace(&chars, i + 1) else {
                out.extend(&chars[i..]);
                break;
            };
            let inner: String = chars[i + 2..close].iter().collect();
            match braced_value(&inner, state) {
                Some(value) => {
                    out.push_str(&value);
                    changed = true;
                }
                None => out.extend(&chars[i..=close]),
            }
            i = close + 1;
            continue;
        }
        let name_len = chars[i + 1..]
            .iter()
            .enumerate()
            .take_while(|&(k, c)| {
                c.is_ascii_alphanumeric() && (k > 0 || !c.is_ascii_digit()) || *c == '_'
            })
            .count();
        let name: String = chars[i + 1..i + 1 + name_len].iter().collect();
        match lookup(&name, state).filter(|_| name_len > 0) {
            Some(value) => {
                out.push_str(value);
                changed = true;
            }
            None => out.extend(&chars[i..=i + name_len]),
        }
        i += 1 + name_len;
    }
    (out, changed)
}

/// The index of the `}` matching the `{` at `open`.
fn matching_brace(chars: &[char], open: usize) -> Option<usize> {
    let mut depth = 0usize;
    for (k, &c) in chars.iter().enumerate().skip(open) {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(k);
                }
            }
            _ => {}
        }
    }
    None
}

/// The value of `${inner}`, if it can be known.
fn braced_value(inner: &str, state: &ShellState) -> Option<String> {
    let name_end = inner
        .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .unwrap_or(inner.len());
    let (name, operator) = inner.split_at(name_end);
    let value = lookup(name, state);
    let default = ["-", ":-", "=", ":="]
        .iter()
        .find_map(|op| operator.strip_prefix(op));
    match (value, default) {
        (Some(value), _) => Some(value.to_owned()),
        (None, Some(default)) => Some(substitute(default, state).0),
        (None, None) => None,
    }
}

/// Brace expansion: `{rm,-rf,/}` gives `rm`, `-rf`, `/`; `pre{a,b}post` gives
/// `preapost`, `prebpost`. `${…}`, `{}` and braces without a top-level comma stay.
/// At most [`MAX_BRACE_GROUPS`] groups per word are expanded (fewer for long words,
/// see [`MAX_BRACE_BYTES`]), into at most [`MAX_BRACE_WORDS`] words.
pub(super) fn brace_expand(text: &str) -> Vec<String> {
    let affordable_words = (MAX_BRACE_BYTES / text.len().max(1)).clamp(2, MAX_BRACE_WORDS);
    let groups = (affordable_words.ilog2() as usize).min(MAX_BRACE_GROUPS);
    let mut out = Vec::new();
    expand_into(text, groups, &mut out);
    out
}

fn expand_into(text: &str, groups_left: usize, out: &mut Vec<String>) {
    let group = (groups_left > 0 && out.len() < MAX_BRACE_WORDS)
        .then(|| find_brace_group(text))
        .flatten();
    match group {
        Some((open, close, parts)) => {
            for part in parts {
                let expanded = format!("{}{part}{}", &text[..open], &text[close + 1..]);
                expand_into(&expanded, groups_left - 1, out);
            }
        }
        None => out.push(text.to_owned()),
    }
}

/// Finds the leftmost outermost `{…}` (not `${…}`) with a top-level comma, in one
/// pass: its byte offsets and the parts between the commas.
fn find_brace_group(text: &str) -> Option<(usize, usize, Vec<&str>)> {
    let bytes = text.as_bytes();
    // Open braces: (offset, or None for `${`; offsets of top-level commas).
    let mut open: Vec<(Option<usize>, Vec<usize>)> = Vec::new();
    let mut best: Option<(usize, usize, Vec<usize>)> = None;
    for (k, &b) in bytes.iter().enumerate() {
        match b {
            b'{' => {
                let parameter = k > 0 && bytes[k - 1] == b'$';
                open.push(((!parameter).then_some(k), Vec::new()));
            }
            b',' => {
                if let Some((_, commas)) = open.last_mut() {
                    commas.push(k);
                }
            }
            b'}' => {
                if let Some((Some(start), commas)) = open.pop()
                    && !commas.is_empty()
                    && best
                        .as_ref()
                        .is_none_or(|(best_start, _, _)| start < *best_start)
                {
                    best = Some((start, k, commas));
                }
            }
            _ => {}
        }
    }
    let (start, close, commas) = best?;
    let mut parts = Vec::new();
    let mut from = start + 1;
    for comma in commas {
        parts.push(&text[from..comma]);
        from = comma + 1;
    }
    parts.push(&text[from..close]);
    Some((start, close, parts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::syntax::{Token, tokenize};

    fn words(source: &str, state: &ShellState) -> Vec<String> {
        let words: Vec<Word> = tokenize(source)
            .unwrap()
            .into_iter()
            .filter_map(|t| match t {
                Token::Word(w) => Some(w),
                _ => None,
            })
            .collect();
        expand_words(&words, state)
    }

    #[test]
    fn expansion_cases() {
        let mut state = ShellState::default();
        state.vars.insert("R".into(), "rm".into());
        state.vars.insert("C".into(), "rm -rf /".into());
        // (source, expanded words)
        let cases: &[(&str, &[&str])] = &[
            ("{rm,-rf,/}", &["rm", "-rf", "/"]),
            ("a{b,c}d e", &["abd", "acd", "e"]),
            ("{a,b}{1,2}", &["a1", "a2", "b1", "b2"]),
            ("{a,{b,c}}d", &["ad", "bd", "cd"]),
            ("{{x}a,b}", &["{x}a", "b"]),
            ("{a,b", &["{a,b"]),
            ("${x,y}{1,2}", &["${x,y}1", "${x,y}2"]),
            ("'{a,b}'", &["{a,b}"]),
            ("find . -exec rm {} ;", &["find", ".", "-exec", "rm", "{}"]),
            ("echo ${x} {x}", &["echo", "${x}", "{x}"]),
            ("$R -rf /", &["rm", "-rf", "/"]),
            ("${R} x", &["rm", "x"]),
            ("$C", &["rm", "-rf", "/"]),
            ("\"$C\"", &["rm -rf /"]),
            ("rm${IFS}-rf${IFS}/", &["rm", "-rf", "/"]),
            ("rm${IFS:0:1}-rf", &["rm", "-rf"]),
            (
                "rm -rf $HOME ${HOME}/ \"$HOME\"",
                &["rm", "-rf", "~", "~/", "~"],
            ),
            ("${U:-rm} $U ${U}", &["rm", "$U", "${U}"]),
            ("$1 $@ $", &["$1", "$@", "$"]),
            ("$(id) $R$R", &["$(id)", "rmrm"]),
        ];
        for &(source, expected) in cases {
            assert_eq!(words(source, &state), expected, "{source:?}");
        }
    }
}
