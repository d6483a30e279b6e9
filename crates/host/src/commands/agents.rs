//! `smallebot agents list | show NAME | check PATH`.

use std::path::PathBuf;

use clap::Subcommand;
use smallebot_agent::agents::AgentSet;
use smallebot_agent::assembly::Home;
use smallebot_terminal::agents_text::{check_agents, list_lines, shown_agent};

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
            outln!("{}", shown_agent(&set, &name)?)?;
            Ok(())
        }
        AgentsCommand::Check { path } => Ok(check_agents(&path)?),
    }
}
