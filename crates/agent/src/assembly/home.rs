//! The home directory: where configuration, database, task lists and workspace live.

use std::path::{Path, PathBuf};

/// The files and folders of a home directory (`--home DIR` > `SMALLEBOT_HOME` >
/// `./.agents` in the command line).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// The home directory at `root`.
    #[must_use]
    pub fn new(root: impl Into<PathBuf>) -> Self {
        Self { root: root.into() }
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

    /// The SQLite database, `smallebot.db`.
    #[must_use]
    pub fn database(&self) -> PathBuf {
        self.root.join("smallebot.db")
    }

    /// The conversations' task lists, `tasks/` (`<conversation id>.json` each).
    #[must_use]
    pub fn tasks_dir(&self) -> PathBuf {
        self.root.join("tasks")
    }

    /// The workspace the file and shell tools work in, `workspace/`.
    #[must_use]
    pub fn workspace_dir(&self) -> PathBuf {
        self.root.join("workspace")
    }
}
