//! `smallebot skills list | show NAME | check DIR`.

use std::path::Path;

use smallebot_agent::assembly::Home;
use smallebot_agent::skills::{SkillCatalog, SkillSource, read_folder};

use crate::cli::SkillsCommand;
use crate::error::HostError;
use smallebot_terminal::skills_text::{list_lines, show_text};

/// Runs one `skills` subcommand.
pub fn run(home: &Home, command: SkillsCommand) -> Result<(), HostError> {
    match command {
        SkillsCommand::List { user } => {
            let catalog = SkillCatalog::new(home.skill_folders(user.as_deref()));
            let set = catalog.current();
            if set.all.is_empty() {
                outln!(
                    "no skills: add a folder with a SKILL.md to {} (docs/configuration.md)",
                    home.skills_dir().display()
                )?;
            }
            for line in list_lines(&set) {
                outln!("{line}")?;
            }
            Ok(())
        }
        SkillsCommand::Show { name, user } => {
            let catalog = SkillCatalog::new(home.skill_folders(user.as_deref()));
            let set = catalog.current();
            let skill = set
                .all
                .iter()
                .filter(|s| s.name == name)
                .max_by_key(|s| (s.document.is_some(), s.source != SkillSource::System))
                .ok_or(HostError::UnknownSkill(name))?;
            outln!("{}", show_text(skill))?;
            Ok(())
        }
        SkillsCommand::Check { dir } => check(&dir),
    }
}

/// Validates one folder: every problem printed, an error when one keeps it out.
fn check(dir: &Path) -> Result<(), HostError> {
    let skill = read_folder(dir, SkillSource::Shared);
    for problem in &skill.problems {
        errln!("{problem}");
    }
    match &skill.document {
        Some(document) => {
            outln!(
                "ok: {} is a valid skill named '{}'",
                dir.display(),
                document.name
            )?;
            Ok(())
        }
        None => Err(HostError::SkillCheckFailed(dir.display().to_string())),
    }
}
