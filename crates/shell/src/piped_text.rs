//! The text a command is known to write to its standard output (`echo`, `printf`, `cat`
//! of a here-document), read by both the command policy and the permission rules'
//! command words when it is piped into a shell (`echo 'rm -rf /' | sh`).

use crate::wrappers::basename;

/// The text a command writes to its standard output, when known from the command
/// itself: `echo`/`printf` arguments, or the here-document `cat` prints.
pub(crate) fn output_text(effective: &[String], own_input: Option<String>) -> Option<String> {
    let program = effective.first().map(|word| basename(word))?;
    let args = &effective[1..];
    match program {
        "echo" => {
            let is_option = |a: &&String| {
                a.len() > 1 && a.starts_with('-') && a.chars().skip(1).all(|c| "neE".contains(c))
            };
            let text: Vec<&str> = args
                .iter()
                .skip_while(is_option)
                .map(String::as_str)
                .collect();
            Some(text.join(" ").replace("\\n", "\n"))
        }
        "printf" => {
            let (format, values) = args.split_first()?;
            Some(printf(format, values))
        }
        "cat" if args.is_empty() => own_input,
        _ => None,
    }
}

/// A rough `printf`: `%s`, `%b` and `%d` take the next value, `\n` is a newline, and
/// values left over are appended.
fn printf(format: &str, values: &[String]) -> String {
    let mut values = values.iter();
    let mut out = String::new();
    let mut chars = format.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, chars.peek()) {
            ('%', Some('s' | 'b' | 'd')) => {
                chars.next();
                out.push_str(values.next().map_or("", String::as_str));
            }
            ('%', Some('%')) => {
                chars.next();
                out.push('%');
            }
            ('\\', Some('n')) => {
                chars.next();
                out.push('\n');
            }
            _ => out.push(c),
        }
    }
    for value in values {
        out.push(' ');
        out.push_str(value);
    }
    out
}
