//! Reading skill folders: each `<root>/<NAME>/SKILL.md` parsed by the format's rules,
//! broken folders kept with their problems (each naming the file and line), a user's
//! skill shadowing a shared one of the same name.

use std::path::{Path, PathBuf};

use smallebot_confined::{FileKind, Links, Root};
use smallebot_core::skills::{
    BLOCK_MAX_CHARS, BlockEntry, SKILL_FILE, SkillDocument, parse_skill, skills_block,
};

/// Where a skill comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum SkillSource {
    /// `<home>/sys.skills/`: the system's own (the compaction prompt); never offered to
    /// the model as a skill.
    System,
    /// `<home>/skills/`: every user's.
    Shared,
    /// A user's own folder (multi-user `serve`), or the folder `GenerateSkill` writes to.
    User,
}

impl SkillSource {
    /// `system`, `shared` or `user`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::System => "system",
            Self::Shared => "shared",
            Self::User => "user",
        }
    }
}

/// One skill folder as read.
#[derive(Debug, Clone)]
pub struct Skill {
    /// The folder's name (the skill's name when it follows the format).
    pub name: String,
    /// Where it comes from.
    pub source: SkillSource,
    /// The folder.
    pub dir: PathBuf,
    /// The parsed skill; `None` when a rule kept it out.
    pub document: Option<SkillDocument>,
    /// Every rule it breaks, as `FILE:LINE: rule` (notes included for a loaded skill).
    pub problems: Vec<String>,
}

impl Skill {
    /// Its description (empty for a broken folder).
    #[must_use]
    pub fn description(&self) -> &str {
        self.document
            .as_ref()
            .map_or("", |d| d.description.as_str())
    }

    /// `SKILL.md` in its folder.
    #[must_use]
    pub fn skill_file(&self) -> PathBuf {
        self.dir.join(SKILL_FILE)
    }
}

/// The skills of a set of folders at one moment.
#[derive(Debug, Clone, Default)]
pub struct SkillSet {
    /// Every folder read, loaded or not: system ones, then the others by name (a user's
    /// skill replaces a shared one of the same name).
    pub all: Vec<Skill>,
}

impl SkillSet {
    /// Reads the folders (missing ones are empty).
    #[must_use]
    pub fn read(system: &Path, shared: &Path, user: Option<&Path>) -> Self {
        let mut all = read_root(system, SkillSource::System);
        let mut offered = read_root(shared, SkillSource::Shared);
        if let Some(user) = user {
            for skill in read_root(user, SkillSource::User) {
                if skill.document.is_some() {
                    offered.retain(|s| s.name != skill.name);
                }
                offered.push(skill);
            }
        }
        offered.sort_by(|a, b| a.name.cmp(&b.name));
        all.extend(offered);
        Self { all }
    }

    /// The skills block of the system prompt (empty without skills), naming `read_tool`
    /// as the way to load a skill.
    #[must_use]
    pub fn block(&self, read_tool: &str) -> String {
        let locations: Vec<(String, &Skill)> = self
            .offered()
            .map(|s| (s.dir.display().to_string(), s))
            .collect();
        let entries: Vec<BlockEntry<'_>> = locations
            .iter()
            .map(|(location, skill)| BlockEntry {
                name: &skill.name,
                description: skill.description(),
                location,
            })
            .collect();
        skills_block(&entries, read_tool, BLOCK_MAX_CHARS)
    }

    /// The skills the model may use (shared and the user's), loaded ones only.
    pub fn offered(&self) -> impl Iterator<Item = &Skill> {
        self.all
            .iter()
            .filter(|s| s.source != SkillSource::System && s.document.is_some())
    }

    /// The offered skill called `name`.
    #[must_use]
    pub fn find(&self, name: &str) -> Option<&Skill> {
        self.offered().find(|s| s.name == name)
    }

    /// Every problem of every folder, as `FILE:LINE: rule`.
    pub fn warnings(&self) -> impl Iterator<Item = &str> {
        self.all
            .iter()
            .flat_map(|s| s.problems.iter().map(String::as_str))
    }
}

/// The most bytes of a `SKILL.md` read; a larger one is reported, not loaded.
pub const SKILL_FILE_MAX_BYTES: u64 = 1024 * 1024;

/// The skill folders under `root`, by name (none when it cannot be read). A folder may
/// be a link the person made (to a skill kept elsewhere); anything else is skipped.
fn read_root(root: &Path, source: SkillSource) -> Vec<Skill> {
    let Ok(entries) = Root::open(root, Links::Refuse).and_then(|r| r.read_dir("")) else {
        return Vec::new();
    };
    let mut skills: Vec<Skill> = entries
        .into_iter()
        .filter(|e| !e.name.starts_with('.'))
        .filter(|e| match e.kind {
            FileKind::Dir => true,
            FileKind::Link => Root::open(root.join(&e.name), Links::Refuse).is_ok(),
            _ => false,
        })
        .map(|e| read_folder(&root.join(&e.name), source))
        .collect();
    skills.sort_by(|a, b| a.name.cmp(&b.name));
    skills
}

/// `SKILL.md` of the folder `dir`: a regular file of at most [`SKILL_FILE_MAX_BYTES`]
/// (a pipe or device is refused without blocking), UTF-8.
fn skill_text(dir: &Path) -> Result<String, String> {
    let bytes = Root::open(dir, Links::Beneath)
        .and_then(|root| root.read(SKILL_FILE, SKILL_FILE_MAX_BYTES))
        .map_err(|error| error.to_string())?;
    String::from_utf8(bytes).map_err(|_| "it is not UTF-8 text".to_owned())
}

/// Reads one skill folder.
#[must_use]
pub fn read_folder(dir: &Path, source: SkillSource) -> Skill {
    let name = dir
        .file_name()
        .map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    let file = dir.join(SKILL_FILE);
    let shown = file.display().to_string();
    let (document, problems) = match skill_text(dir) {
        Ok(text) => {
            let (document, problems) = parse_skill(&text, Some(&name));
            let problems = problems.iter().map(|p| p.located(&shown)).collect();
            (document, problems)
        }
        Err(error) => (
            None,
            vec![format!(
                "{shown}: cannot be read ({error}); a skill folder needs a SKILL.md"
            )],
        ),
    };
    Skill {
        name,
        source,
        dir: dir.to_path_buf(),
        document,
        problems,
    }
}
