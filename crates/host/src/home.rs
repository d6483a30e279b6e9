//! The home directory and the files in it (DESIGN.md §9).

use std::path::{Path, PathBuf};

/// The resolved home directory (`--home` > `SMALLEBOT_HOME` > `./.agents`).
#[derive(Debug, Clone)]
pub struct Home {
    root: PathBuf,
}

impl Home {
    /// Wraps the directory chosen on the command line.
    pub fn new(root: PathBuf) -> Self {
        Self { root }
    }

    /// The directory itself.
    #[allow(dead_code)]
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The compression prompt.
    pub fn compact_skill(&self) -> PathBuf {
        self.root
            .join("sys.skills")
            .join("compact")
            .join("SKILL.md")
    }

    /// The SQLite database.
    pub fn database(&self) -> PathBuf {
        self.root.join("smallebot.db")
    }

    /// The conversations' task lists (`<conversation id>.json` each).
    pub fn tasks_dir(&self) -> PathBuf {
        self.root.join("tasks")
    }

    /// The workspace the file and shell tools work in.
    pub fn workspace_dir(&self) -> PathBuf {
        self.root.join("workspace")
    }
}
