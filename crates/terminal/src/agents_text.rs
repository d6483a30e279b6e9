//! Agent definitions as the command line and the chat show them.

use std::path::Path;

use smallebot_agent::agents::{
    AgentEntry, AgentSet, AgentSource, read_agent_file, read_agent_folder,
};
use smallebot_core::agents::{AGENT_FILE_EXTENSION, AgentDefinition, AgentModel, AgentTools};
use smallebot_core::rules::terminal_text::escape_line;

use crate::TerminalError;

/// One line per agent (`NAME  SOURCE  description`), the warning of a file that does
/// not load and the notes of one that does indented under it. Every text from a file is
/// escaped for the terminal.
#[must_use]
pub fn list_lines(set: &AgentSet) -> Vec<String> {
    let width = set
        .all
        .iter()
        .map(|a| a.name.chars().count())
        .max()
        .unwrap_or(0);
    let mut lines = Vec::new();
    for agent in &set.all {
        let description = match &agent.definition {
            Some(definition) => one_line(&definition.description),
            None => "(not loaded)".to_owned(),
        };
        lines.push(format!(
            "{:<width$}  {:<7}  {}",
            escape_line(&agent.name),
            agent.source.as_str(),
            escape_line(&description)
        ));
        for problem in &agent.problems {
            lines.push(format!("    problem: {}", escape_line(problem)));
        }
    }
    lines
}

/// An agent in full: where it is, its keys and its system prompt.
#[must_use]
pub fn show_text(agent: &AgentEntry) -> String {
    let place = agent
        .file
        .as_ref()
        .map_or_else(|| "built in".to_owned(), |f| f.display().to_string());
    let mut out = format!(
        "{} ({}) {}\n",
        escape_line(&agent.name),
        agent.source.as_str(),
        escape_line(&place)
    );
    for problem in &agent.problems {
        out.push_str(&format!("problem: {}\n", escape_line(problem)));
    }
    let Some(definition) = &agent.definition else {
        return out;
    };
    out.push_str(&keys_text(definition));
    out.push('\n');
    out.push_str(&escape_text(&definition.prompt));
    out
}

/// The keys of a definition, one per line.
fn keys_text(definition: &AgentDefinition) -> String {
    let tools = match &definition.tools {
        AgentTools::Inherit => "the delegating agent's".to_owned(),
        AgentTools::Only(names) if names.is_empty() => "none".to_owned(),
        AgentTools::Only(names) => names.join(", "),
    };
    let model = match &definition.model {
        AgentModel::Inherit => "inherit".to_owned(),
        AgentModel::Id(id) => id.clone(),
    };
    let sandbox = definition
        .sandbox
        .map_or("the delegating agent's", |s| s.as_str());
    let steps = definition
        .max_tool_steps
        .map_or_else(|| "the delegating agent's".to_owned(), |n| n.to_string());
    escape_text(&format!(
        "description: {}\ntools: {tools}\nmodel: {model}\nsandbox: {sandbox}\nmaxToolSteps: {steps}\n",
        one_line(&definition.description)
    ))
}

/// Text of several lines escaped line by line.
fn escape_text(text: &str) -> String {
    text.split('\n')
        .map(|line| escape_line(line).into_owned())
        .collect::<Vec<_>>()
        .join("\n")
}

/// A description on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `agents show NAME`: the agent of that name in `set` (one that loads before a broken
/// file of the same name, a user's or shared one before the built-in).
///
/// # Errors
/// No agent is called `name`.
pub fn shown_agent(set: &AgentSet, name: &str) -> Result<String, TerminalError> {
    set.all
        .iter()
        .filter(|a| a.name == name)
        .max_by_key(|a| (a.definition.is_some(), a.source))
        .map(show_text)
        .ok_or_else(|| TerminalError::UnknownAgent(name.to_owned()))
}

/// `agents check`: validates one file or each agent file of a folder, every problem
/// printed to standard error and each file that loads said on standard output.
///
/// # Errors
/// The path does not exist or holds no agent file, a file does not load, or the
/// output cannot be written.
pub fn check_agents(path: &Path) -> Result<(), TerminalError> {
    if !path.exists() {
        return Err(TerminalError::AgentCheckFailed(format!(
            "{} does not exist: give an agent file or a folder of them",
            path.display()
        )));
    }
    let agents = if path.is_dir() {
        read_agent_folder(path, AgentSource::Shared).map_err(TerminalError::AgentCheckFailed)?
    } else {
        vec![read_agent_file(path, AgentSource::Shared)]
    };
    if agents.is_empty() {
        return Err(TerminalError::AgentCheckFailed(format!(
            "{} holds no .{AGENT_FILE_EXTENSION} file",
            path.display()
        )));
    }
    let mut broken = 0usize;
    for agent in &agents {
        for problem in &agent.problems {
            errln!("{}", escape_line(problem));
        }
        let file = agent.file.as_deref().unwrap_or(path);
        match &agent.definition {
            Some(definition) => outln!(
                "ok: {} is a valid agent named '{}'",
                escape_line(&file.display().to_string()),
                escape_line(&definition.name)
            )?,
            None => broken += 1,
        }
    }
    match broken {
        0 => Ok(()),
        n => Err(TerminalError::AgentCheckFailed(format!(
            "{n} of {} agent file(s) in {} do not load: fix the problems above",
            agents.len(),
            path.display()
        ))),
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use smallebot_agent::agents::{AgentEntry, AgentSet, AgentSource};
    use smallebot_core::agents::AgentDefinition;

    use super::{list_lines, show_text};

    #[test]
    fn lines_show_each_agent_its_source_and_problems_escaped() {
        let broken = AgentEntry {
            name: "bad".into(),
            source: AgentSource::Shared,
            file: Some(PathBuf::from("/h/agents/bad.md")),
            definition: None,
            problems: vec!["/h/agents/bad.md:2: 'name' \u{1b}[31m".into()],
            warning: None,
        };
        let general = AgentEntry {
            name: "general".into(),
            source: AgentSource::Builtin,
            file: None,
            definition: Some(AgentDefinition::general()),
            problems: vec![],
            warning: None,
        };
        let set = AgentSet {
            all: vec![broken, general.clone()],
        };
        let lines = list_lines(&set);
        assert_eq!(lines.len(), 3);
        assert!(
            lines[0].starts_with("bad      shared   (not loaded)"),
            "{}",
            lines[0]
        );
        assert!(
            lines[1].starts_with("    problem: /h/agents/bad.md:2:"),
            "{}",
            lines[1]
        );
        assert!(!lines[1].contains('\u{1b}'), "{}", lines[1]);
        assert!(lines[2].starts_with("general  builtin  A general-purpose agent"));
        let shown = show_text(&general);
        assert!(shown.starts_with("general (builtin) built in\n"), "{shown}");
        assert!(
            shown.contains("\ntools: the delegating agent's\nmodel: inherit\n"),
            "{shown}"
        );
        assert!(
            shown.ends_with(&AgentDefinition::general().prompt),
            "{shown}"
        );
    }
}
