//! `ReadSkill` and `GenerateSkill`: the model loads a skill (its instructions, its file
//! list, one of its files) and writes a new one.

mod generate;
mod read;

pub use generate::{GenerateSkill, GenerateSkillArgs, SkillFileArg};
pub use read::{READ_SKILL_DEFAULT_LIMIT, ReadSkill, ReadSkillArgs};
