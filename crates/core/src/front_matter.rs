//! Markdown files that begin with YAML front matter (skills' `SKILL.md`, agent
//! definitions): the split into front matter and body, the YAML read into a struct with
//! the line of its first error, the line a key is written on, and the problem type both
//! formats report.

use serde::de::DeserializeOwned;

/// One rule a front-matter file breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FrontMatterProblem {
    /// The line of the file (from 1), where it can be told.
    pub line: Option<usize>,
    /// The rule broken, in words.
    pub rule: String,
    /// `false` for a note that does not keep the file out (an unknown key).
    pub fatal: bool,
}

impl FrontMatterProblem {
    /// A problem that keeps the file out.
    #[must_use]
    pub fn fatal(line: Option<usize>, rule: impl Into<String>) -> Self {
        Self {
            line,
            rule: rule.into(),
            fatal: true,
        }
    }

    /// A note that does not keep the file out.
    #[must_use]
    pub fn note(line: Option<usize>, rule: impl Into<String>) -> Self {
        Self {
            line,
            rule: rule.into(),
            fatal: false,
        }
    }

    /// `FILE:LINE: rule` (or `FILE: rule` without a line).
    #[must_use]
    pub fn located(&self, file: &str) -> String {
        match self.line {
            Some(line) => format!("{file}:{line}: {}", self.rule),
            None => format!("{file}: {}", self.rule),
        }
    }
}

/// The YAML between the opening and closing `---` lines of `text`, and the body after
/// them; `file` names the file in the problem (`SKILL.md`, `an agent file`).
///
/// # Errors
/// No opening `---` line (line 1), or none closing the front matter.
pub fn split_front_matter<'t>(
    text: &'t str,
    file: &str,
    fields: &str,
) -> Result<(&'t str, &'t str), FrontMatterProblem> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let missing = || {
        FrontMatterProblem::fatal(
            Some(1),
            format!(
                "{file} must begin with a '---' line, the YAML front matter ({fields}) \
                 and another '---' line"
            ),
        )
    };
    let first_end = text.find('\n').ok_or_else(missing)?;
    if text[..first_end].trim_end() != "---" {
        return Err(missing());
    }
    let rest = &text[first_end + 1..];
    let mut offset = 0;
    for line in rest.split_inclusive('\n') {
        if line.trim_end() == "---" {
            return Ok((&rest[..offset], &rest[offset + line.len()..]));
        }
        offset += line.len();
    }
    Err(FrontMatterProblem::fatal(
        None,
        "the front matter is never closed: add a '---' line after its last field",
    ))
}

/// The front matter `yaml` read as `T` (an empty one as `T::default()`).
///
/// # Errors
/// Text that is not YAML of `T`'s shape, with the file's line of the error (the YAML
/// starts on line 2).
pub fn read_front_matter<T: DeserializeOwned + Default>(
    yaml: &str,
    shape: &str,
) -> Result<T, FrontMatterProblem> {
    match serde_saphyr::from_str::<Option<T>>(yaml) {
        Ok(fields) => Ok(fields.unwrap_or_default()),
        Err(error) => {
            let line = error
                .location()
                .and_then(|l| usize::try_from(l.line()).ok())
                .map(|l| l + 1);
            let message = error.to_string();
            let first = yaml_reason(message.lines().next().unwrap_or("not valid YAML"));
            Err(FrontMatterProblem::fatal(
                line,
                format!("the front matter is not {shape}: {first}"),
            ))
        }
    }
}

/// The parser's first line without its own `error: line L column C:` prefix (its
/// lines count from the front matter, not from the file).
fn yaml_reason(line: &str) -> &str {
    let line = line.strip_prefix("error: ").unwrap_or(line);
    match line.split_once(": ") {
        Some((place, reason)) if place.starts_with("line ") => reason,
        _ => line,
    }
}

/// The line of the file where the front-matter key `key` is written (the YAML starts
/// on line 2).
#[must_use]
pub fn key_line(yaml: &str, key: &str) -> Option<usize> {
    yaml.lines()
        .position(|line| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|index| index + 2)
}
