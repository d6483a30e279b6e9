//! The home directory: where configuration, database, task lists and workspace live.

use std::path::{Path, PathBuf};

use crate::agents::{AgentFolders, HomeAgents};

/// The chat's input history in the home.
pub const CHAT_HISTORY_FILE: &str = "history.txt";

/// Web users' own folders in the home.
const USERS_FOLDER: &str = "users";
/// A skills folder (shared, or a web user's own).
const SKILLS_FOLDER: &str = "skills";
/// An agent definitions folder (shared, or a web user's own).
const AGENTS_FOLDER: &str = "agents";

/// The files and folders of a home directory (`--home DIR` > `SMALLEBOT_HOME` >
/// `./.agents` in the command line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
    database: Option<String>,
}

impl Home {
    /// The home directory at `root`.
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self {
            root: root.into(),
            database: None,
        }
    }

    /// The same home with its database elsewhere: a PostgreSQL URL or a SQLite path
    /// (`--database`); `None` keeps [`Home::database`].
    #[must_use]
    pub fn with_database(mut self, location: Option<String>) -> Self {
        self.database = location;
        self
    }

    /// The database given with [`Home::with_database`], as given; `None` means the
    /// home's own SQLite file.
    #[must_use]
    pub fn database_location(&self) -> Option<&str> {
        self.database.as_deref()
    }

    /// The directory itself (agent.json, models.json, terminal.json are in it).
    #[must_use]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The compression prompt, `sys.skills/compact/SKILL.md`.
    #[must_use]
    pub fn compact_skill(&self) -> PathBuf {
        self.root
            .join("sys.skills")
            .join("compact")
            .join("SKILL.md")
    }

    /// The system's skills, `sys.skills/`.
    #[must_use]
    pub fn system_skills_dir(&self) -> PathBuf {
        self.root.join("sys.skills")
    }

    /// The skills every user shares, `skills/`.
    #[must_use]
    pub fn skills_dir(&self) -> PathBuf {
        self.root.join("skills")
    }

    /// A web user's own skills, `users/<name>/skills/` (outside their workspace, so
    /// their commands cannot rewrite them).
    #[must_use]
    pub fn user_skills_dir(&self, user: &str) -> PathBuf {
        self.users_dir().join(user).join(SKILLS_FOLDER)
    }

    /// The skills folders: the system's, the shared ones and, with `user`, that web
    /// user's own on top.
    #[must_use]
    pub fn skill_folders(&self, user: Option<&str>) -> crate::skills::SkillFolders {
        crate::skills::SkillFolders {
            system: self.system_skills_dir(),
            shared: self.skills_dir(),
            user: user.map(|u| self.user_skills_dir(u)),
        }
    }

    /// The agent definitions every user shares, `agents/` (`NAME.md` each).
    #[must_use]
    pub fn agents_dir(&self) -> PathBuf {
        self.root.join("agents")
    }

    /// A web user's own agent definitions, `users/<name>/agents/` (outside their
    /// workspace, so their commands cannot rewrite them).
    #[must_use]
    pub fn user_agents_dir(&self, user: &str) -> PathBuf {
        self.users_dir().join(user).join(AGENTS_FOLDER)
    }

    /// The agent folders of this home; with `user`, that web user's own on top.
    #[must_use]
    pub fn agent_folders(&self, user: Option<&str>) -> AgentFolders {
        AgentFolders {
            shared: self.agents_dir(),
            user: user.map(|u| self.user_agents_dir(u)),
        }
    }

    /// The web app's agent listing of this home; `per_user`: users sign in and each
    /// sees their own agents too.
    #[must_use]
    pub fn agent_directory(&self, per_user: bool) -> HomeAgents {
        HomeAgents {
            shared: self.agents_dir(),
            users: per_user.then(|| self.users_dir()),
        }
    }

    /// The web app's rewind of this home's conversations, over `store` (contents kept
    /// there); `per_user`: users sign in and each works in their own folder beneath
    /// the workspace.
    #[must_use]
    pub fn conversation_rewind(
        &self,
        store: std::sync::Arc<dyn smallebot_core::repository::Store>,
        per_user: bool,
    ) -> smallebot_checkpoints::HomeRewind {
        smallebot_checkpoints::HomeRewind::new(
            store,
            self.workspace_dir(),
            smallebot_checkpoints::Limits::default(),
            per_user,
        )
    }

    /// The home's own SQLite database, `smallebot.db` (used unless
    /// [`Home::database_location`] names another).
    #[must_use]
    pub fn database(&self) -> PathBuf {
        self.root.join("smallebot.db")
    }

    /// The conversations' task lists, `tasks/` (`<conversation id>.json` each).
    #[must_use]
    pub fn tasks_dir(&self) -> PathBuf {
        self.root.join("tasks")
    }

    /// What of the home a backup copies besides the database, the attachment contents
    /// and the task lists, relative to [`Home::root`]: the configuration files, the
    /// shared skills and agent folders and the chat's input history — not the
    /// workspaces, which hold the person's own files.
    #[must_use]
    pub fn configuration_entries(&self) -> Vec<PathBuf> {
        use crate::config::{AGENT_FILE, MCP_FILE, MODELS_FILE, TERMINAL_FILE};
        [
            AGENT_FILE,
            MODELS_FILE,
            MCP_FILE,
            TERMINAL_FILE,
            CHAT_HISTORY_FILE,
            "sys.skills",
            SKILLS_FOLDER,
            AGENTS_FOLDER,
        ]
        .iter()
        .map(PathBuf::from)
        .collect()
    }

    /// The folder of web users' own files, `users/` (`users/<name>/skills`, `…/agents`).
    #[must_use]
    pub fn users_dir(&self) -> PathBuf {
        self.root.join(USERS_FOLDER)
    }

    /// What of each web user's folder (`users/<name>/`) a backup copies.
    #[must_use]
    pub fn user_configuration_entries(&self) -> Vec<PathBuf> {
        vec![PathBuf::from(SKILLS_FOLDER), PathBuf::from(AGENTS_FOLDER)]
    }

    /// The workspace the file and shell tools work in, `workspace/`.
    #[must_use]
    pub fn workspace_dir(&self) -> PathBuf {
        self.root.join("workspace")
    }
}
