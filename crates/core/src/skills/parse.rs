//! A `SKILL.md` text into a [`SkillDocument`], or the problems that keep it out.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;

use crate::front_matter::{FrontMatterProblem, key_line, read_front_matter, split_front_matter};

use super::SKILL_FILE;
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
pub type SkillProblem = FrontMatterProblem;

/// Parses the text of `SKILL.md` in the folder named `folder` (its name must equal the
/// skill's; `None` skips that rule). The document is `None` when a fatal problem was
/// found; the problems are every rule broken, fatal or not.
#[must_use]
pub fn parse_skill(text: &str, folder: Option<&str>) -> (Option<SkillDocument>, Vec<SkillProblem>) {
    let parsed =
        split_front_matter(text, SKILL_FILE, "name, description").and_then(|(yaml, body)| {
            read_front_matter::<Fields>(yaml, "a YAML map of text fields").map(|f| (yaml, body, f))
        });
    let (yaml, body, fields) = match parsed {
        Ok(parts) => parts,
        Err(problem) => return (None, vec![problem]),
    };
    let line_of = |key: &str| key_line(yaml, key);
    let mut problems = Vec::new();
    for key in fields.other.keys() {
        problems.push(SkillProblem::note(
            line_of(key),
            format!(
                "unknown key '{key}' is ignored (the format knows {})",
                KNOWN_KEYS.join(", ")
            ),
        ));
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

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
