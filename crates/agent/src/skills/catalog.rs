//! [`SkillCatalog`]: the skills of an agent's folders, read again when their files
//! change.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::SystemTime;

use super::discovery::SkillSet;

/// The folders an agent's skills come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillFolders {
    /// `<home>/sys.skills`: the system's.
    pub system: PathBuf,
    /// `<home>/skills`: shared by every user.
    pub shared: PathBuf,
    /// A user's own folder, outside their workspace (multi-user `serve`); its skills
    /// shadow shared ones of the same name.
    pub user: Option<PathBuf>,
}

impl SkillFolders {
    /// Where `GenerateSkill` writes: the user's folder, else the shared one.
    #[must_use]
    pub fn writable(&self) -> &Path {
        self.user.as_deref().unwrap_or(&self.shared)
    }

    /// The same folders as absolute paths (the prompt shows them to the model, whose
    /// commands run in the workspace; the sandbox resolves them there too).
    #[must_use]
    pub fn absolute(self) -> Self {
        let absolute = |path: PathBuf| std::path::absolute(&path).unwrap_or(path);
        Self {
            system: absolute(self.system),
            shared: absolute(self.shared),
            user: self.user.map(absolute),
        }
    }

    /// The folders the model's skills come from (the shared one, then the user's).
    #[must_use]
    pub fn offered(&self) -> Vec<PathBuf> {
        std::iter::once(self.shared.clone())
            .chain(self.user.clone())
            .collect()
    }
}

/// What the folders looked like when last read: each folder's and each `SKILL.md`'s
/// modification time and size (an edit, an added or a removed skill changes one of them).
type Stamp = Vec<(PathBuf, Option<(SystemTime, u64)>)>;

/// The skills of [`SkillFolders`], cached; [`SkillCatalog::current`] reads them again
/// when a folder or a `SKILL.md` changed since the last read.
#[derive(Debug)]
pub struct SkillCatalog {
    folders: SkillFolders,
    cache: Mutex<Option<(Stamp, Arc<SkillSet>)>>,
}

impl SkillCatalog {
    /// The catalog of `folders`, made absolute (read on first use).
    #[must_use]
    pub fn new(folders: SkillFolders) -> Self {
        Self {
            folders: folders.absolute(),
            cache: Mutex::new(None),
        }
    }

    /// The folders.
    #[must_use]
    pub fn folders(&self) -> &SkillFolders {
        &self.folders
    }

    /// The skills as they are now: the cached set, or a new read when a file changed.
    #[must_use]
    pub fn current(&self) -> Arc<SkillSet> {
        let stamp = self.stamp();
        let Ok(mut cache) = self.cache.lock() else {
            return Arc::new(self.read());
        };
        if let Some((seen, set)) = cache.as_ref()
            && *seen == stamp
        {
            return Arc::clone(set);
        }
        let set = Arc::new(self.read());
        *cache = Some((stamp, Arc::clone(&set)));
        set
    }

    fn read(&self) -> SkillSet {
        SkillSet::read(
            &self.folders.system,
            &self.folders.shared,
            self.folders.user.as_deref(),
        )
    }

    fn stamp(&self) -> Stamp {
        let mtime = |path: &Path| {
            std::fs::metadata(path)
                .and_then(|m| Ok((m.modified()?, m.len())))
                .ok()
        };
        let mut stamp = Vec::new();
        let roots = [
            Some(&self.folders.system),
            Some(&self.folders.shared),
            self.folders.user.as_ref(),
        ];
        for root in roots.into_iter().flatten() {
            stamp.push((root.clone(), mtime(root)));
            let Ok(entries) = std::fs::read_dir(root) else {
                continue;
            };
            let mut dirs: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
            dirs.sort();
            for dir in dirs {
                let file = dir.join(smallebot_core::skills::SKILL_FILE);
                stamp.push((dir.clone(), mtime(&dir)));
                let time = mtime(&file);
                stamp.push((file, time));
            }
        }
        stamp
    }
}
