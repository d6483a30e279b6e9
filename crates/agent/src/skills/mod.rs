//! Skills: folders in the Agent Skills format (`NAME/SKILL.md`, optional `scripts/`,
//! `references/`, `assets/`) read from the home's `skills/`, a user's own folder and
//! the system's `sys.skills/` ([`SkillSet::read`]), kept current by a cheap modification-time
//! check ([`SkillCatalog`]), shown to the model as a bounded block of the system prompt,
//! and loaded or written by the `ReadSkill` and `GenerateSkill` tools.

mod catalog;
mod discovery;
mod files;
mod listing;

pub use catalog::{SkillCatalog, SkillFolders};
pub use discovery::{Skill, SkillSet, SkillSource, read_folder};
pub use files::{SKILL_FILES_MAX, skill_files};
pub use listing::HomeSkills;
