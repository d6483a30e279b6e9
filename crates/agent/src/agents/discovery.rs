//! Reading agent folders: each `<root>/NAME.md` parsed, broken files kept with their
//! problems, a user's agent shadowing a shared one, the built-in `general` first.

use std::path::{Path, PathBuf};

use smallebot_confined::{FileKind, Links, Root};
use smallebot_core::agents::{AGENT_FILE_EXTENSION, AgentDefinition, parse_agent};

use super::cache::FileCache;

/// The agent files a process read, each parsed again only once it changed.
pub type AgentFileCache = FileCache<AgentEntry>;

/// Where an agent definition comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AgentSource {
    /// Built into SmallEBot (`general`).
    Builtin,
    /// `<home>/agents/`: every user's.
    Shared,
    /// A web user's own `<home>/users/NAME/agents/`.
    User,
}

impl AgentSource {
    /// `builtin`, `shared` or `user`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Builtin => "builtin",
            Self::Shared => "shared",
            Self::User => "user",
        }
    }
}

/// The folders agent definitions come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentFolders {
    /// `<home>/agents`: shared by every user.
    pub shared: PathBuf,
    /// A user's own folder (multi-user `serve`); its agents shadow shared ones.
    pub user: Option<PathBuf>,
}

/// One agent definition as read.
#[derive(Debug, Clone)]
pub struct AgentEntry {
    /// Its name (the file's name without `.md` when it does not load).
    pub name: String,
    /// Where it comes from.
    pub source: AgentSource,
    /// Its file (`None` for the built-in one).
    pub file: Option<PathBuf>,
    /// The parsed definition; `None` when a rule kept it out.
    pub definition: Option<AgentDefinition>,
    /// Every rule it breaks, as `FILE:LINE: rule` (notes included for a loaded agent).
    pub problems: Vec<String>,
    /// The one warning of a file that does not load: its first fatal problem.
    pub warning: Option<String>,
}

impl AgentEntry {
    /// Its description (empty for a broken file).
    #[must_use]
    pub fn description(&self) -> &str {
        self.definition
            .as_ref()
            .map_or("", |d| d.description.as_str())
    }

    fn builtin(definition: AgentDefinition) -> Self {
        Self {
            name: definition.name.clone(),
            source: AgentSource::Builtin,
            file: None,
            definition: Some(definition),
            problems: Vec::new(),
            warning: None,
        }
    }
}

/// The agents of a set of folders at one moment.
#[derive(Debug, Clone, Default)]
pub struct AgentSet {
    /// Every agent, loaded or not, by name; a loaded user's agent replaces a shared one
    /// of the same name, a loaded `general.md` the built-in one.
    pub all: Vec<AgentEntry>,
}

impl AgentSet {
    /// Reads the folders (missing ones are empty).
    #[must_use]
    pub fn read(folders: &AgentFolders) -> Self {
        Self::read_cached(folders, &AgentFileCache::new())
    }

    /// Reads the folders as [`AgentSet::read`] does, taking the files that did not
    /// change since `cache` saw them from it.
    #[must_use]
    pub fn read_cached(folders: &AgentFolders, cache: &AgentFileCache) -> Self {
        let mut all = vec![AgentEntry::builtin(AgentDefinition::general())];
        let layers = std::iter::once((folders.shared.as_path(), AgentSource::Shared))
            .chain(folders.user.as_deref().map(|u| (u, AgentSource::User)));
        for (root, source) in layers {
            for entry in read_folder(root, source, cache).unwrap_or_default() {
                if entry.definition.is_some() {
                    all.retain(|a| a.name != entry.name);
                }
                all.push(entry);
            }
        }
        all.sort_by(|a, b| a.name.cmp(&b.name).then(a.source.cmp(&b.source)));
        Self { all }
    }

    /// The agents that load, one per name.
    pub fn loaded(&self) -> impl Iterator<Item = (&AgentEntry, &AgentDefinition)> {
        self.all
            .iter()
            .filter_map(|a| a.definition.as_ref().map(|d| (a, d)))
    }

    /// The loaded agent called `name`.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<&AgentDefinition> {
        self.loaded().find(|(a, _)| a.name == name).map(|(_, d)| d)
    }

    /// One warning per file that does not load, `FILE:LINE: rule`.
    pub fn warnings(&self) -> impl Iterator<Item = &str> {
        self.all.iter().filter_map(|a| a.warning.as_deref())
    }
}

/// The most bytes of an agent file read; a larger one is reported, not loaded.
pub const AGENT_FILE_MAX_BYTES: u64 = 256 * 1024;

/// Reads every agent file (`*.md`, not hidden) directly in `root`, by name. Links are
/// not followed: a linked file is reported, not read.
///
/// # Errors
/// The folder cannot be opened or listed, in words.
pub fn read_agent_folder(root: &Path, source: AgentSource) -> Result<Vec<AgentEntry>, String> {
    read_folder(root, source, &AgentFileCache::new())
}

/// [`read_agent_folder`], taking unchanged files from `cache`.
fn read_folder(
    root: &Path,
    source: AgentSource,
    cache: &AgentFileCache,
) -> Result<Vec<AgentEntry>, String> {
    let listed = Root::open(root, Links::Refuse).and_then(|dir| Ok((dir.read_dir("")?, dir)));
    let (entries, dir) =
        listed.map_err(|error| format!("cannot read {}: {error}", root.display()))?;
    let suffix = format!(".{AGENT_FILE_EXTENSION}");
    let files: Vec<_> = entries
        .into_iter()
        .filter(|e| !e.name.starts_with('.') && e.name.ends_with(&suffix))
        .filter(|e| matches!(e.kind, FileKind::File | FileKind::Link))
        .map(|e| (root.join(&e.name), e))
        .collect();
    let mut found: Vec<AgentEntry> = files
        .iter()
        .map(|(path, e)| cache.entry(path, e, || read_in(&dir, root, &e.name, source)))
        .collect();
    let paths: Vec<PathBuf> = files.into_iter().map(|(path, _)| path).collect();
    cache.keep_only(root, &paths);
    found.sort_by(|a, b| a.name.cmp(&b.name));
    Ok(found)
}

/// Reads the agent file `path` (for `agents check`).
#[must_use]
pub fn read_agent_file(path: &Path, source: AgentSource) -> AgentEntry {
    let parent = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p,
        _ => Path::new("."),
    };
    let name = path
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    match Root::open(parent, Links::Beneath) {
        Ok(dir) => read_in(&dir, parent, &name, source),
        Err(error) => broken(path, &name, source, format!("cannot be read ({error})")),
    }
}

/// Reads `file_name` in the open folder `dir` (at `root`).
fn read_in(dir: &Root, root: &Path, file_name: &str, source: AgentSource) -> AgentEntry {
    let path = root.join(file_name);
    let stem = file_name
        .strip_suffix(&format!(".{AGENT_FILE_EXTENSION}"))
        .unwrap_or(file_name);
    let text = dir
        .read(file_name, AGENT_FILE_MAX_BYTES)
        .map_err(|error| error.to_string())
        .and_then(|bytes| String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned()));
    let text = match text {
        Ok(text) => text,
        Err(error) => {
            return broken(&path, stem, source, format!("cannot be read ({error})"));
        }
    };
    let shown = path.display().to_string();
    let (definition, problems) = parse_agent(&text, Some(stem));
    let warning = problems.iter().find(|p| p.fatal).map(|p| p.located(&shown));
    AgentEntry {
        name: stem.to_owned(),
        source,
        file: Some(path),
        definition,
        problems: problems.iter().map(|p| p.located(&shown)).collect(),
        warning,
    }
}

fn broken(path: &Path, name: &str, source: AgentSource, reason: String) -> AgentEntry {
    let problem = format!("{}: {reason}", path.display());
    AgentEntry {
        name: name.to_owned(),
        source,
        file: Some(path.to_path_buf()),
        definition: None,
        problems: vec![problem.clone()],
        warning: Some(problem),
    }
}
