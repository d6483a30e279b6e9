//! The application's [`AgentDirectory`] port on a home's agent folders: a signed-in
//! user sees the shared agents and their own; on loopback, the shared ones.

use std::path::PathBuf;

use smallebot_application::ports::AgentDirectory;
use smallebot_core::agents::{AgentModel, AgentTools};
use smallebot_protocol::api;

use super::discovery::{AgentEntry, AgentFolders, AgentSet, AgentSource};

/// The agents of a home as the web app shows them
/// ([`Home::agent_directory`](crate::assembly::Home::agent_directory) makes one).
#[derive(Debug, Clone)]
pub struct HomeAgents {
    /// The shared folder, `<home>/agents`.
    pub shared: PathBuf,
    /// Where users sign in: a user's own folder, `<home>/users/<name>/agents`, is
    /// `users.join(name).join("agents")`; `None` on loopback (the shared ones only).
    pub users: Option<PathBuf>,
}

impl AgentDirectory for HomeAgents {
    fn list(&self, user: &str) -> api::AgentList {
        let folders = AgentFolders {
            shared: self.shared.clone(),
            user: self.users.as_ref().map(|u| u.join(user).join("agents")),
        };
        let set = AgentSet::read(&folders);
        api::AgentList {
            agents: set.all.iter().map(summary).collect(),
        }
    }
}

fn source(source: AgentSource) -> api::AgentSource {
    match source {
        AgentSource::Builtin => api::AgentSource::Builtin,
        AgentSource::Shared => api::AgentSource::Shared,
        AgentSource::User => api::AgentSource::User,
    }
}

/// An agent as a web user sees it: its file and the files its problems name relative
/// to its agents folder (`reviewer.md`, `reviewer.md:3`), never the server's absolute
/// paths (`agents list` on the command line shows those).
#[must_use]
pub fn summary(entry: &AgentEntry) -> api::AgentSummary {
    let (location, absolute) = match &entry.file {
        Some(file) => (
            file.file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            file.display().to_string(),
        ),
        None => (String::new(), String::new()),
    };
    let definition = entry.definition.as_ref();
    api::AgentSummary {
        name: entry.name.clone(),
        description: entry.description().to_owned(),
        source: source(entry.source),
        location: location.clone(),
        tools: definition.and_then(|d| match &d.tools {
            AgentTools::Inherit => None,
            AgentTools::Only(names) => Some(names.clone()),
        }),
        model: definition.map_or_else(
            || "inherit".to_owned(),
            |d| match &d.model {
                AgentModel::Inherit => "inherit".to_owned(),
                AgentModel::Id(id) => id.clone(),
            },
        ),
        sandbox: definition.and_then(|d| d.sandbox.map(|s| s.as_str().to_owned())),
        max_tool_steps: definition.and_then(|d| d.max_tool_steps),
        problems: entry
            .problems
            .iter()
            .map(|problem| {
                if absolute.is_empty() {
                    problem.clone()
                } else {
                    problem.replace(&absolute, &location)
                }
            })
            .collect(),
    }
}
