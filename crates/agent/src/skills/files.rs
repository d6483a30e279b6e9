//! The files of a skill folder, as `ReadSkill` lists them.

use std::path::Path;

use smallebot_confined::{FileKind, Links, Root};
use smallebot_core::skills::SKILL_FILE;

/// The most files listed for one skill.
pub const SKILL_FILES_MAX: usize = 200;

/// The files of the skill folder `dir` relative to it (`scripts/run.sh`), `SKILL.md`
/// and hidden entries left out, sorted, at most [`SKILL_FILES_MAX`]; every folder is
/// read beneath `dir`, symbolic links are not followed and special files not listed.
#[must_use]
pub fn skill_files(dir: &Path) -> Vec<String> {
    let Ok(root) = Root::open(dir, Links::Refuse) else {
        return Vec::new();
    };
    let mut found = Vec::new();
    let mut pending = vec![String::new()];
    while let Some(prefix) = pending.pop() {
        let Ok(entries) = root.read_dir(prefix.trim_end_matches('/')) else {
            continue;
        };
        for entry in entries {
            let name = entry.name;
            if name.starts_with('.') || (prefix.is_empty() && name == SKILL_FILE) {
                continue;
            }
            let relative = format!("{prefix}{name}");
            match entry.kind {
                FileKind::Dir => pending.push(format!("{relative}/")),
                FileKind::File => found.push(relative),
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
