//! `smallebot agents list | show NAME | check PATH`.

use std::path::{Path, PathBuf};

use clap::Subcommand;
use smallebot_agent::agents::{AgentSet, AgentSource, read_agent_file, read_agent_folder};
use smallebot_agent::assembly::Home;
use smallebot_core::agents::AGENT_FILE_EXTENSION;
use smallebot_core::rules::terminal_text::escape_line;
use smallebot_terminal::agents_text::{list_lines, show_text};

use crate::error::HostError;

/// `smallebot agents …`
#[derive(Debug, Subcommand)]
pub enum AgentsCommand {
    /// Every agent definition: name, source (builtin, shared, user), description, and
    /// the problems of files that break the format (file, line, rule).
    List {
        /// Also this web user's own agents (`<home>/users/NAME/agents/`), which shadow
        /// shared ones of the same name.
        #[arg(long)]
        user: Option<String>,
    },
    /// One agent in full: file, keys and system prompt.
    Show {
        /// The agent's name.
        name: String,
        /// Look in this web user's own agents too.
        #[arg(long)]
        user: Option<String>,
    },
    /// Validate an agent file, or every `*.md` file of a folder, against the format
    /// (front matter: name equal to the file's name, description, optional tools,
    /// model, sandbox, maxToolSteps; the body is the system prompt). Prints each
    /// problem as FILE:LINE: rule; exits 1 when a file would not load.
    Check {
        /// An agent file, or a folder of them.
        path: PathBuf,
    },
}

/// Runs one `agents` subcommand.
pub fn run(home: &Home, command: AgentsCommand) -> Result<(), HostError> {
    match command {
        AgentsCommand::List { user } => {
            let set = AgentSet::read(&home.agent_folders(user.as_deref()));
            for line in list_lines(&set) {
                outln!("{line}")?;
            }
            Ok(())
        }
        AgentsCommand::Show { name, user } => {
            let set = AgentSet::read(&home.agent_folders(user.as_deref()));
            let agent = set
                .all
                .iter()
                .filter(|a| a.name == name)
                .max_by_key(|a| (a.definition.is_some(), a.source))
                .ok_or(HostError::UnknownAgent(name))?;
            outln!("{}", show_text(agent))?;
            Ok(())
        }
        AgentsCommand::Check { path } => check(&path),
    }
}

/// Validates one file or each agent file of a folder: every problem printed, an error
/// when one keeps a file out.
fn check(path: &Path) -> Result<(), HostError> {
    if !path.exists() {
        return Err(HostError::AgentCheckFailed(format!(
            "{} does not exist: give an agent file or a folder of them",
            path.display()
        )));
    }
    let agents = if path.is_dir() {
        read_agent_folder(path, AgentSource::Shared).map_err(HostError::AgentCheckFailed)?
    } else {
        vec![read_agent_file(path, AgentSource::Shared)]
    };
    if agents.is_empty() {
        return Err(HostError::AgentCheckFailed(format!(
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
        n => Err(HostError::AgentCheckFailed(format!(
            "{n} of {} agent file(s) in {} do not load: fix the problems above",
            agents.len(),
            path.display()
        ))),
    }
}
