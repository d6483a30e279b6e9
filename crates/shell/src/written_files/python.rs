//! Finds files a piece of Python code opens for writing: `open('<literal>', 'w')`,
//! `open('<literal>', mode='a')`, `io.open(…)`, `codecs.open(…)`.
//!
//! Only a string-literal path with a string-literal mode containing `w`, `a` or `x`
//! counts; a variable path, a read mode or no mode finds nothing. Strings and comments
//! are skipped, so `print("open('x','w')")` finds nothing either.
//!
//! This is a small scanner for Python source, not a second shell lexer: shell text is
//! only ever tokenized by [`syntax`](crate::syntax).

/// Paths opened for writing, in order of appearance (duplicates kept).
pub(super) fn files_opened_for_writing(code: &str) -> Vec<String> {
    PythonScanner {
        chars: code.chars().collect(),
    }
    .files_opened_for_writing()
}

/// Python source as chars: knows strings, comments and call arguments, just enough to
/// find `open(…)` calls.
struct PythonScanner {
    chars: Vec<char>,
}

impl PythonScanner {
    /// Paths of `open(…)` calls that write, in order of appearance.
    fn files_opened_for_writing(&self) -> Vec<String> {
        let chars = &self.chars;
        let mut found = Vec::new();
        let mut i = 0;
        let mut previous_ident: Option<String> = None;
        let mut after_dot = false;
        while i < chars.len() {
            let c = chars[i];
            if c == '#' {
                while i < chars.len() && chars[i] != '\n' {
                    i += 1;
                }
                continue;
            }
            if c == '\'' || c == '"' {
                i = self.read_string(i, false).end;
                after_dot = false;
                continue;
            }
            if c.is_alphabetic() || c == '_' {
                let start = i;
                while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                    i += 1;
                }
                let ident: String = chars[start..i].iter().collect();
                if is_string_prefix(&ident) && matches!(chars.get(i), Some('\'' | '"')) {
                    i = self
                        .read_string(i, ident.to_ascii_lowercase().contains('r'))
                        .end;
                    after_dot = false;
                    continue;
                }
                let receiver_ok = !after_dot
                    || matches!(
                        previous_ident.as_deref(),
                        Some("io" | "codecs" | "builtins")
                    );
                if ident == "open" && receiver_ok {
                    let mut j = i;
                    while j < chars.len() && chars[j].is_whitespace() {
                        j += 1;
                    }
                    if chars.get(j) == Some(&'(')
                        && let Some(path) = written_path(&self.parse_arguments(j + 1))
                    {
                        found.push(path);
                    }
                }
                previous_ident = Some(ident);
                after_dot = false;
                continue;
            }
            if c == '.' {
                after_dot = true;
            } else if !c.is_whitespace() {
                after_dot = false;
                previous_ident = None;
            }
            i += 1;
        }
        found
    }

    /// Parses the arguments of a call whose `(` ends just before `start`.
    fn parse_arguments(&self, start: usize) -> Vec<Argument> {
        let chars = &self.chars;
        let mut arguments = Vec::new();
        let mut i = start;
        loop {
            while i < chars.len() && chars[i].is_whitespace() {
                i += 1;
            }
            if i >= chars.len() || chars[i] == ')' {
                return arguments;
            }
            let mut keyword = None;
            let ident_end = (i..chars.len())
                .find(|&k| !(chars[k].is_alphanumeric() || chars[k] == '_'))
                .unwrap_or(chars.len());
            if ident_end > i {
                let mut k = ident_end;
                while k < chars.len() && chars[k].is_whitespace() {
                    k += 1;
                }
                if chars.get(k) == Some(&'=') && chars.get(k + 1) != Some(&'=') {
                    keyword = Some(chars[i..ident_end].iter().collect());
                    i = k + 1;
                    while i < chars.len() && chars[i].is_whitespace() {
                        i += 1;
                    }
                }
            }
            let value_start = i;
            let mut literal = self.string_literal_at(i).map(|(text, end)| {
                i = end;
                text
            });
            // Skip the rest of the argument (anything after a literal makes it an expression).
            let mut depth = 0usize;
            while i < chars.len() {
                match chars[i] {
                    '\'' | '"' => {
                        if i > value_start {
                            literal = None;
                        }
                        i = self.read_string(i, false).end;
                    }
                    '(' | '[' | '{' => {
                        depth += 1;
                        i += 1;
                    }
                    ')' | ']' | '}' if depth > 0 => {
                        depth -= 1;
                        i += 1;
                    }
                    ',' | ')' if depth == 0 => break,
                    c => {
                        if !c.is_whitespace() && i > value_start {
                            literal = None;
                        }
                        i += 1;
                    }
                }
            }
            arguments.push(Argument { keyword, literal });
            if i < chars.len() && chars[i] == ',' {
                i += 1;
            } else {
                return arguments;
            }
        }
    }

    /// A plain string literal starting at `i` (optional `r`/`b`/`u` prefix; an f-string
    /// counts only without `{`), with the index after it.
    fn string_literal_at(&self, i: usize) -> Option<(String, usize)> {
        let chars = &self.chars;
        let prefix_len = chars[i..]
            .iter()
            .take_while(|c| c.is_ascii_alphabetic())
            .count();
        let prefix: String = chars[i..i + prefix_len].iter().collect();
        if !matches!(chars.get(i + prefix_len), Some('\'' | '"'))
            || !(prefix.is_empty() || is_string_prefix(&prefix))
        {
            return None;
        }
        let lower = prefix.to_ascii_lowercase();
        let string = self.read_string(i + prefix_len, lower.contains('r'));
        if !string.closed || (lower.contains('f') && string.text.contains('{')) {
            return None;
        }
        Some((string.text, string.end))
    }

    /// Reads a (possibly triple-quoted) string from its opening quote at `i`.
    fn read_string(&self, i: usize, raw: bool) -> PythonString {
        let chars = &self.chars;
        let quote = chars[i];
        let triple = chars.get(i + 1) == Some(&quote) && chars.get(i + 2) == Some(&quote);
        let mut j = i + if triple { 3 } else { 1 };
        let mut text = String::new();
        while j < chars.len() {
            let c = chars[j];
            if c == '\\' && j + 1 < chars.len() {
                let next = chars[j + 1];
                match next {
                    _ if raw => {
                        text.push('\\');
                        text.push(next);
                    }
                    '\\' | '\'' | '"' => text.push(next),
                    'n' => text.push('\n'),
                    't' => text.push('\t'),
                    _ => {
                        text.push('\\');
                        text.push(next);
                    }
                }
                j += 2;
                continue;
            }
            if c == quote
                && (!triple
                    || (chars.get(j + 1) == Some(&quote) && chars.get(j + 2) == Some(&quote)))
            {
                let end = j + if triple { 3 } else { 1 };
                return PythonString {
                    text,
                    end,
                    closed: true,
                };
            }
            if c == '\n' && !triple {
                break;
            }
            text.push(c);
            j += 1;
        }
        PythonString {
            text,
            end: j,
            closed: false,
        }
    }
}

/// One argument of a call.
#[derive(Debug, PartialEq)]
struct Argument {
    /// The keyword, for `name=value`.
    keyword: Option<String>,
    /// The value when it is exactly one plain string literal.
    literal: Option<String>,
}

/// The path of an `open` call that writes, from its arguments.
fn written_path(arguments: &[Argument]) -> Option<String> {
    let positional: Vec<&Argument> = arguments.iter().filter(|a| a.keyword.is_none()).collect();
    let keyword = |name: &str| {
        arguments
            .iter()
            .find(|a| a.keyword.as_deref() == Some(name))
    };
    let path = positional
        .first()
        .copied()
        .or_else(|| keyword("file"))?
        .literal
        .clone()?;
    let mode = positional
        .get(1)
        .copied()
        .or_else(|| keyword("mode"))?
        .literal
        .as_deref()?;
    let writes = mode.contains(['w', 'a', 'x']);
    (writes && !path.is_empty()).then_some(path)
}

/// Whether `ident` is a string prefix (`r`, `b`, `f`, …).
fn is_string_prefix(ident: &str) -> bool {
    matches!(
        ident.to_ascii_lowercase().as_str(),
        "r" | "u" | "b" | "f" | "rb" | "br" | "fr" | "rf"
    )
}

/// A string literal read from its opening quote.
struct PythonString {
    text: String,
    end: usize,
    closed: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_literal_paths_opened_for_writing() {
        let cases: [(&str, &[&str]); 23] = [
            ("open('o.txt','w').write('x')", &["o.txt"]),
            (
                "with open(\"out.csv\", \"w\", newline='') as f: pass",
                &["out.csv"],
            ),
            ("open('log.txt', 'a')", &["log.txt"]),
            ("open('new.bin', 'xb')", &["new.bin"]),
            ("open('data.bin', 'wb')", &["data.bin"]),
            ("open('rw.txt', 'w+')", &["rw.txt"]),
            ("open('k.txt', mode='w')", &["k.txt"]),
            ("open(file='f.txt', mode='a')", &["f.txt"]),
            ("open(r'C:\\tmp\\x.txt', 'w')", &["C:\\tmp\\x.txt"]),
            ("io.open('io.txt', 'w')", &["io.txt"]),
            ("open('a.txt','w'); open('b.txt','a')", &["a.txt", "b.txt"]),
            ("open ( 'sp.txt' , 'w' )", &["sp.txt"]),
            ("open('e.txt', 'w', encoding='utf-8')", &["e.txt"]),
            ("open(name, 'w')", &[]),
            ("open('in.txt')", &[]),
            ("open('in.txt', 'r')", &[]),
            ("open('in.bin', 'rb')", &[]),
            ("open('in.txt', encoding='ascii')", &[]),
            ("open(f'{name}.txt', 'w')", &[]),
            ("open('a' + ext, 'w')", &[]),
            ("open('a' 'b', 'w')", &[]),
            ("print(\"open('x','w')\")  # open('y','w')", &[]),
            (
                "fopen('c.txt','w'); p.open('w'); os.open('z', os.O_CREAT)",
                &[],
            ),
        ];
        for (code, expected) in cases {
            assert_eq!(files_opened_for_writing(code), expected, "{code}");
        }
    }
}
