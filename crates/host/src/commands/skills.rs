//! `smallebot skills list | show NAME | check DIR`.

use smallebot_agent::assembly::Home;
use smallebot_agent::skills::SkillCatalog;

use crate::cli::SkillsCommand;
use crate::error::HostError;
use smallebot_terminal::skills_text::{check_skill, list_lines, shown_skill};

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
            outln!("{}", shown_skill(&set, &name)?)?;
            Ok(())
        }
        SkillsCommand::Check { dir } => Ok(check_skill(&dir)?),
    }
}
