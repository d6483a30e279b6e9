//! An agent file's text into an [`AgentDefinition`], or the problems that keep it out.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde::de::IgnoredAny;

use super::definition::{AgentDefinition, AgentModel, AgentSandbox, AgentTools};
use crate::front_matter::{FrontMatterProblem, key_line, read_front_matter, split_front_matter};
use crate::skills::name_problem;

/// Longest `description`, in characters.
pub const AGENT_DESCRIPTION_MAX_CHARS: usize = 1024;
/// Longest system prompt (the body), in characters.
pub const AGENT_PROMPT_MAX_CHARS: usize = 50_000;
/// Largest `maxToolSteps` (agent.json's own limit).
pub const AGENT_MAX_TOOL_STEPS: u32 = 500;
/// Most names in `tools`.
const TOOLS_MAX: usize = 200;
/// Longest tool name.
const TOOL_NAME_MAX_CHARS: usize = 128;
/// The front-matter keys an agent file may hold.
pub const AGENT_KNOWN_KEYS: [&str; 6] = [
    "name",
    "description",
    "tools",
    "model",
    "sandbox",
    "maxToolSteps",
];

/// The front matter as written (numbers and booleans are read as their text).
#[derive(Debug, Default, Deserialize)]
struct Fields {
    name: Option<String>,
    description: Option<String>,
    tools: Option<ToolsField>,
    model: Option<String>,
    sandbox: Option<String>,
    #[serde(rename = "maxToolSteps")]
    max_tool_steps: Option<String>,
    #[serde(flatten)]
    other: BTreeMap<String, IgnoredAny>,
}

/// `tools` as a YAML list or as one comma-separated text (Claude Code writes both).
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum ToolsField {
    List(Vec<String>),
    Text(String),
}

/// Parses the text of the agent file whose name without `.md` is `stem` (the agent's
/// name must equal it; `None` skips that rule). The definition is `None` when a fatal
/// problem was found; the problems are every rule broken, fatal or not.
#[must_use]
pub fn parse_agent(
    text: &str,
    stem: Option<&str>,
) -> (Option<AgentDefinition>, Vec<FrontMatterProblem>) {
    let parsed =
        split_front_matter(text, "an agent file", "name, description").and_then(|(yaml, body)| {
            read_front_matter::<Fields>(yaml, "a YAML map of agent fields").map(|f| (yaml, body, f))
        });
    let (yaml, body, fields) = match parsed {
        Ok(parts) => parts,
        Err(problem) => return (None, vec![problem]),
    };
    let line_of = |key: &str| key_line(yaml, key);
    let mut problems = Vec::new();
    for key in fields.other.keys() {
        problems.push(FrontMatterProblem::note(
            line_of(key),
            format!(
                "unknown key '{key}' is ignored (an agent file knows {})",
                AGENT_KNOWN_KEYS.join(", ")
            ),
        ));
    }
    // A missing key is reported at the front matter's closing `---`, where it goes.
    let closing = Some(yaml.lines().count() + 2);
    let mut rule = |line: Option<usize>, problem: Option<String>| {
        if let Some(problem) = problem {
            problems.push(FrontMatterProblem::fatal(line, problem));
        }
    };
    let trimmed = |value: Option<String>| value.map(|v| v.trim().to_owned());
    let name = trimmed(fields.name);
    let description = trimmed(fields.description);
    match &name {
        None => rule(closing, Some(missing("name"))),
        Some(name) => rule(line_of("name"), agent_name_problem(name, stem)),
    }
    match &description {
        None => rule(closing, Some(missing("description"))),
        Some(description) => rule(line_of("description"), description_problem(description)),
    }
    let tools = match fields.tools.map(tool_names) {
        None => AgentTools::Inherit,
        Some(Ok(names)) => AgentTools::Only(names),
        Some(Err(problem)) => {
            rule(line_of("tools"), Some(problem));
            AgentTools::Inherit
        }
    };
    let model = match trimmed(fields.model).as_deref() {
        None | Some("inherit") => AgentModel::Inherit,
        Some("") => {
            rule(
                line_of("model"),
                Some("'model' is empty; give a models.json id or 'inherit'".to_owned()),
            );
            AgentModel::Inherit
        }
        Some(id) => AgentModel::Id(id.to_owned()),
    };
    let sandbox = match trimmed(fields.sandbox).as_deref().map(sandbox_mode) {
        None => None,
        Some(Ok(mode)) => Some(mode),
        Some(Err(problem)) => {
            rule(line_of("sandbox"), Some(problem));
            None
        }
    };
    let max_tool_steps = match trimmed(fields.max_tool_steps).as_deref().map(steps) {
        None => None,
        Some(Ok(steps)) => Some(steps),
        Some(Err(problem)) => {
            rule(line_of("maxToolSteps"), Some(problem));
            None
        }
    };
    let prompt = body.trim().to_owned();
    rule(None, prompt_problem(&prompt));
    let definition = match (name, description) {
        (Some(name), Some(description)) if !problems.iter().any(|p| p.fatal) => {
            Some(AgentDefinition {
                name,
                description,
                tools,
                model,
                sandbox,
                max_tool_steps,
                prompt,
            })
        }
        _ => None,
    };
    (definition, problems)
}

/// The sandbox mode `value` names, or why it names none.
fn sandbox_mode(value: &str) -> Result<AgentSandbox, String> {
    match value {
        "read-only" => Ok(AgentSandbox::ReadOnly),
        "workspace-write" => Ok(AgentSandbox::WorkspaceWrite),
        other => Err(format!(
            "'sandbox' '{other}' is not a sandbox mode; write 'read-only' or \
             'workspace-write' (never wider than the parent's)"
        )),
    }
}

fn missing(key: &str) -> String {
    format!("'{key}' is missing; the front matter needs 'name' and 'description'")
}

/// What is wrong with `name` for the file named `stem` (`None`: nothing).
fn agent_name_problem(name: &str, stem: Option<&str>) -> Option<String> {
    if name.is_empty() {
        return Some("'name' is empty; give the agent a name (its file's name)".to_owned());
    }
    name_problem(name, None).or_else(|| match stem {
        Some(stem) if stem != name => Some(format!(
            "'name' '{name}' differs from its file '{stem}.md'; rename one so they match"
        )),
        _ => None,
    })
}

/// What is wrong with `description` (`None`: nothing): 1–1024 characters, not blank.
fn description_problem(description: &str) -> Option<String> {
    if description.is_empty() {
        return Some(
            "'description' is empty; say what the agent does and when to delegate to it".to_owned(),
        );
    }
    let chars = description.chars().count();
    (chars > AGENT_DESCRIPTION_MAX_CHARS).then(|| {
        format!(
            "'description' has {chars} characters; at most {AGENT_DESCRIPTION_MAX_CHARS} are allowed"
        )
    })
}

/// What is wrong with the body as a system prompt (`None`: nothing).
fn prompt_problem(prompt: &str) -> Option<String> {
    if prompt.is_empty() {
        return Some(
            "the body after the front matter is empty; it is the agent's system prompt".to_owned(),
        );
    }
    let chars = prompt.chars().count();
    (chars > AGENT_PROMPT_MAX_CHARS).then(|| {
        format!(
            "the system prompt (the body) has {chars} characters; at most \
             {AGENT_PROMPT_MAX_CHARS} are allowed"
        )
    })
}

/// The tool names of `tools`: a list, or one text split at commas (and spaces).
fn tool_names(field: ToolsField) -> Result<Vec<String>, String> {
    let names: Vec<String> = match field {
        ToolsField::List(names) => names.into_iter().map(|n| n.trim().to_owned()).collect(),
        ToolsField::Text(text) => text
            .split(|c: char| c == ',' || c.is_whitespace())
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect(),
    };
    if names.len() > TOOLS_MAX {
        return Err(format!(
            "'tools' names {} tools; at most {TOOLS_MAX} are allowed",
            names.len()
        ));
    }
    for name in &names {
        if name.is_empty() {
            return Err("'tools' holds an empty name; remove it".to_owned());
        }
        if name.chars().count() > TOOL_NAME_MAX_CHARS || name.chars().any(char::is_whitespace) {
            return Err(format!(
                "'tools' holds '{name}', which is no tool name (no spaces, at most \
                 {TOOL_NAME_MAX_CHARS} characters)"
            ));
        }
    }
    let mut unique = Vec::with_capacity(names.len());
    for name in names {
        if !unique.contains(&name) {
            unique.push(name);
        }
    }
    Ok(unique)
}

/// `maxToolSteps` as written: a whole number from 1 to [`AGENT_MAX_TOOL_STEPS`].
fn steps(text: &str) -> Result<u32, String> {
    match text.parse::<u32>() {
        Ok(n) if (1..=AGENT_MAX_TOOL_STEPS).contains(&n) => Ok(n),
        _ => Err(format!(
            "'maxToolSteps' '{text}' is not a whole number from 1 to {AGENT_MAX_TOOL_STEPS}"
        )),
    }
}

#[cfg(test)]
#[path = "parse_tests.rs"]
mod tests;
