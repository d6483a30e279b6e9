//! The Agent Skills format (a folder `NAME/` holding `SKILL.md`: YAML front matter, then
//! Markdown instructions) as pure rules: each front-matter field's limits, the parse of
//! a `SKILL.md` text into a skill or the problems that keep it out, and the bounded
//! skills block of the system prompt.
//!
//! `allowed-tools` is read, validated and shown, and never grants anything: a skill
//! cannot let a tool run without the confirmation it would otherwise need.

mod block;
mod fields;
mod parse;

pub use block::{BLOCK_MAX_CHARS, BlockEntry, LIST_ALL, skills_block};
pub use fields::{
    COMPATIBILITY_MAX_CHARS, DESCRIPTION_MAX_CHARS, KNOWN_KEYS, NAME_MAX_CHARS,
    compatibility_problem, description_problem, name_problem, split_allowed_tools,
};
pub use parse::{SkillDocument, SkillProblem, parse_skill};

/// The file every skill folder holds.
pub const SKILL_FILE: &str = "SKILL.md";
