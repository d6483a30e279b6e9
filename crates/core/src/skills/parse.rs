//! A `SKILL.md` text into a [`SkillDocument`], or the problems that keep it out.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::fields::{
    KNOWN_KEYS, compatibility_problem, description_problem, name_problem, split_allowed_tools,
};

/// The front matter as written (numbers and booleans are read as their text).
#[derive(Debug, Default, Deserialize)]
struct Fields {
    name: Option<String>,
    description: Option<String>,
    license: Option<String>,
    compatibility: Option<String>,
    metadata: Option<BTreeMap<String, String>>,
    #[serde(rename = "allowed-tools")]
    allowed_tools: Option<String>,
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

/// A skill that follows the format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillDocument {
    /// `name`.
    pub name: String,
    /// `description` (as written, line breaks of a block scalar kept).
    pub description: String,
    /// `license`, if given.
    pub license: Option<String>,
    /// `compatibility`, if given.
    pub compatibility: Option<String>,
    /// `metadata`: string keys to string values (numbers and booleans written as text).
    pub metadata: BTreeMap<String, String>,
    /// `allowed-tools`, split into tool names. Shown, never granted.
    pub allowed_tools: Vec<String>,
    /// The Markdown after the front matter.
    pub body: String,
}

/// One rule a `SKILL.md` breaks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillProblem {
    /// The line of `SKILL.md` (from 1), where it can be told.
    pub line: Option<usize>,
    /// The rule broken, in words.
    pub rule: String,
    /// `false` for a note that does not keep the skill out (an unknown key).
    pub fatal: bool,
}

impl SkillProblem {
    fn fatal(line: Option<usize>, rule: impl Into<String>) -> Self {
        Self {
            line,
            rule: rule.into(),
            fatal: true,
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

/// Parses the text of `SKILL.md` in the folder named `folder` (its name must equal the
/// skill's; `None` skips that rule). The document is `None` when a fatal problem was
/// found; the problems are every rule broken, fatal or not.
#[must_use]
pub fn parse_skill(text: &str, folder: Option<&str>) -> (Option<SkillDocument>, Vec<SkillProblem>) {
    let (yaml, body) = match split_front_matter(text) {
        Ok(parts) => parts,
        Err(problem) => return (None, vec![problem]),
    };
    let line_of = |key: &str| key_line(yaml, key);
    let fields: Fields = match serde_saphyr::from_str::<Option<Fields>>(yaml) {
        Ok(fields) => fields.unwrap_or_default(),
        Err(error) => {
            let line = error
                .location()
                .and_then(|l| usize::try_from(l.line()).ok())
                .map(|l| l + 1);
            let message = error.to_string();
            let first = yaml_reason(message.lines().next().unwrap_or("not valid YAML"));
            return (
                None,
                vec![SkillProblem::fatal(
                    line,
                    format!("the front matter is not a YAML map of text fields: {first}"),
                )],
            );
        }
    };
    let mut problems = Vec::new();
    for key in fields.other.keys() {
        problems.push(SkillProblem {
            line: line_of(key),
            rule: format!(
                "unknown key '{key}' is ignored (the format knows {})",
                KNOWN_KEYS.join(", ")
            ),
            fatal: false,
        });
    }
    for (key, value) in [("name", &fields.name), ("description", &fields.description)] {
        if value.is_none() {
            problems.push(SkillProblem::fatal(
                None,
                format!("'{key}' is missing; the front matter needs 'name' and 'description'"),
            ));
        }
    }
    let trimmed = |value: Option<String>| value.map(|v| v.trim_end().to_owned());
    let name = trimmed(fields.name);
    let description = trimmed(fields.description);
    let license = trimmed(fields.license);
    let compatibility = trimmed(fields.compatibility);
    let allowed = fields.allowed_tools;
    let metadata = fields.metadata.unwrap_or_default();
    let mut rule = |key: &str, problem: Option<String>| {
        if let Some(problem) = problem {
            problems.push(SkillProblem::fatal(line_of(key), problem));
        }
    };
    if let Some(name) = &name {
        rule("name", name_problem(name, folder));
    }
    if let Some(description) = &description {
        rule("description", description_problem(description));
    }
    if let Some(compatibility) = &compatibility {
        rule("compatibility", compatibility_problem(compatibility));
    }
    let allowed_tools = match allowed.as_deref().map(split_allowed_tools) {
        Some(Ok(tools)) => tools,
        Some(Err(problem)) => {
            rule("allowed-tools", Some(problem));
            Vec::new()
        }
        None => Vec::new(),
    };
    let document = match (name, description) {
        (Some(name), Some(description)) if !problems.iter().any(|p| p.fatal) => {
            Some(SkillDocument {
                name,
                description,
                license,
                compatibility,
                metadata,
                allowed_tools,
                body: body.to_owned(),
            })
        }
        _ => None,
    };
    (document, problems)
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

/// The YAML between the opening and closing `---` lines, and the body after them.
fn split_front_matter(text: &str) -> Result<(&str, &str), SkillProblem> {
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let missing = || {
        SkillProblem::fatal(
            Some(1),
            "SKILL.md must begin with a '---' line, the YAML front matter (name, description) \
             and another '---' line",
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
    Err(SkillProblem::fatal(
        None,
        "the front matter is never closed: add a '---' line after its last field",
    ))
}

/// The line of `SKILL.md` where the front-matter key `key` is written (the YAML starts
/// on line 2).
fn key_line(yaml: &str, key: &str) -> Option<usize> {
    yaml.lines()
        .position(|line| {
            line.strip_prefix(key)
                .is_some_and(|rest| rest.trim_start().starts_with(':'))
        })
        .map(|index| index + 2)
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
