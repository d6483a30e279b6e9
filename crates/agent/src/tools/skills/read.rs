//! `ReadSkill`: a skill's instructions and files, or one of its files.

use std::io::Read;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};
use smallebot_confined::{ConfinedError, FileKind, Links, Root};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::rules::truncation::truncate_tool_result;
use smallebot_core::rules::workspace_path::check_relative_path;
use smallebot_core::skills::LIST_ALL;

use crate::skills::{Skill, SkillCatalog, SkillSet, skill_files};
use crate::tools::TypedTool;
use crate::tools::workspace::run_blocking;

/// `ReadSkill`'s built-in `toolResultMaxLengthByTool` entry: a skill's instructions
/// must reach the model whole more often than a command's output.
pub const READ_SKILL_DEFAULT_LIMIT: usize = 10_000;

/// Loads a skill listed in the system prompt.
#[derive(Debug, Clone)]
pub struct ReadSkill {
    catalog: Arc<SkillCatalog>,
    limit: usize,
}

impl ReadSkill {
    /// The name the model calls it by.
    pub const NAME: &'static str = "ReadSkill";

    /// The tool over `catalog`, its results cut at `limit` characters (its tool result
    /// limit).
    #[must_use]
    pub fn new(catalog: Arc<SkillCatalog>, limit: usize) -> Self {
        Self { catalog, limit }
    }
}

/// `ReadSkill`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct ReadSkillArgs {
    /// The skill's name as listed under # Skills ("*" lists every skill).
    pub name: String,
    /// A file of the skill relative to its folder, e.g. 'references/api.md'; without
    /// it, the instructions (SKILL.md) and the list of the skill's files.
    #[serde(default)]
    pub path: Option<String>,
}

#[async_trait]
impl TypedTool for ReadSkill {
    type Args = ReadSkillArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn description(&self) -> String {
        format!(
            "Load a skill listed under # Skills: its instructions (SKILL.md) and the list \
             of its files; with 'path', one of its files (e.g. a reference). Name \"{LIST_ALL}\" \
             lists every skill. Run a skill's scripts with ExecuteCommand using its folder."
        )
    }

    async fn run(&self, args: ReadSkillArgs, context: &ToolContext) -> ToolOutcome {
        let catalog = Arc::clone(&self.catalog);
        let limit = self.limit;
        run_blocking(context, move || {
            let set = catalog.current();
            let outcome = read(&set, &args);
            ToolOutcome {
                content: truncate_tool_result(&outcome.content, limit).into_owned(),
                status: outcome.status,
            }
        })
        .await
    }
}

fn read(set: &SkillSet, args: &ReadSkillArgs) -> ToolOutcome {
    if args.name == LIST_ALL {
        return ToolOutcome::ok(list(set));
    }
    let Some(skill) = set.find(&args.name) else {
        return ToolOutcome::error(format!(
            "Error: ReadSkill: no skill is called '{}'. {}",
            args.name,
            list(set)
        ));
    };
    match args.path.as_deref() {
        None | Some("") => ToolOutcome::ok(instructions(skill)),
        Some(path) => read_file(skill, path),
    }
}

/// Every offered skill, one line each.
fn list(set: &SkillSet) -> String {
    let lines: Vec<String> = set
        .offered()
        .map(|s| {
            format!(
                "- {} ({}): {} [{}]",
                s.name,
                s.source.as_str(),
                s.description()
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" "),
                s.dir.display()
            )
        })
        .collect();
    if lines.is_empty() {
        "There are no skills.".to_owned()
    } else {
        format!("Skills:\n{}", lines.join("\n"))
    }
}

/// The skill's folder, allowed tools, files and instructions.
fn instructions(skill: &Skill) -> String {
    let mut out = format!("Skill '{}' in {}\n", skill.name, skill.dir.display());
    if let Some(document) = &skill.document
        && !document.allowed_tools.is_empty()
    {
        out.push_str(&format!(
            "allowed-tools (shown only; every tool keeps its usual confirmation): {}\n",
            document.allowed_tools.join(" ")
        ));
    }
    let files = skill_files(&skill.dir);
    if files.is_empty() {
        out.push_str("Files: none besides SKILL.md\n");
    } else {
        out.push_str(&format!(
            "Files (read with path, run scripts with ExecuteCommand from {}):\n",
            skill.dir.display()
        ));
        for file in files {
            out.push_str(&format!("- {file}\n"));
        }
    }
    out.push('\n');
    out.push_str(skill.document.as_ref().map_or("", |d| d.body.trim()));
    out
}

/// The most bytes of a skill's file read (the result is cut to the tool's limit anyway).
const FILE_READ_MAX: u64 = 1024 * 1024;

/// One file of the skill, read beneath its folder (links followed only while they stay
/// inside it); only a regular file is read, and the open never blocks.
fn read_file(skill: &Skill, path: &str) -> ToolOutcome {
    let refuse = |why: String| ToolOutcome {
        content: format!("Error: ReadSkill: {why}"),
        status: ToolCallStatus::Denied,
    };
    let relative = match check_relative_path(path) {
        Ok(relative) => relative,
        Err(error) => {
            return refuse(format!(
                "{error} (paths are relative to the skill's folder)"
            ));
        }
    };
    let failed = |why: String| ToolOutcome::error(format!("Error: ReadSkill: '{path}' {why}"));
    let root = match Root::open(&skill.dir, Links::Beneath) {
        Ok(root) => root,
        Err(error) => return failed(format!("cannot be read: {error}")),
    };
    let file = match root.open_read(relative.to_relative_string()) {
        Ok((file, _)) => file,
        Err(ConfinedError::NotFound { .. }) => {
            return failed(format!(
                "does not exist in skill '{}'; its files are listed when you call ReadSkill \
                 without a path",
                skill.name
            ));
        }
        Err(error) if error.is_refusal() => {
            return refuse(format!(
                "'{path}' leads outside skill '{}' (through a symbolic link); only the skill's \
                 own files can be read",
                skill.name
            ));
        }
        Err(ConfinedError::NotRegular {
            kind: FileKind::Dir,
            ..
        }) => return failed("is a folder; give one of the files ReadSkill lists".to_owned()),
        Err(ConfinedError::NotRegular { kind, .. }) => {
            return failed(format!(
                "is {kind}, not a regular file; only the skill's regular files can be read"
            ));
        }
        Err(error) => return failed(format!("cannot be read ({error})")),
    };
    let mut bytes = Vec::new();
    if let Err(error) = file.take(FILE_READ_MAX).read_to_end(&mut bytes) {
        return failed(format!("cannot be read ({error})"));
    }
    if bytes.contains(&0) {
        return failed("is a binary file; only text files can be read".to_owned());
    }
    ToolOutcome::ok(String::from_utf8_lossy(&bytes).into_owned())
}
