//! The files of a skill folder, as `ReadSkill` lists them.

use std::path::Path;

use smallebot_core::skills::SKILL_FILE;

/// The most files listed for one skill.
pub const SKILL_FILES_MAX: usize = 200;

/// The files of the skill folder `dir` relative to it (`scripts/run.sh`), `SKILL.md`
/// and hidden entries left out, sorted, at most [`SKILL_FILES_MAX`]; symbolic links are
/// not followed.
#[must_use]
pub fn skill_files(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    let mut pending = vec![(dir.to_path_buf(), String::new())];
    while let Some((folder, prefix)) = pending.pop() {
        let Ok(entries) = std::fs::read_dir(&folder) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            if name.starts_with('.') || (prefix.is_empty() && name == SKILL_FILE) {
                continue;
            }
            let relative = format!("{prefix}{name}");
            match entry.file_type() {
                Ok(kind) if kind.is_dir() => pending.push((entry.path(), format!("{relative}/"))),
                Ok(kind) if kind.is_file() => found.push(relative),
                _ => {}
            }
            if found.len() >= SKILL_FILES_MAX {
                found.sort();
                return found;
            }
        }
    }
    found.sort();
    found
}
