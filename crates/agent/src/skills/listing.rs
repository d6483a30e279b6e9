//! The skills port ([`UserSkills`]) on the home's skills folders, as the web app lists
//! them: a signed-in user sees the shared skills and their own; on loopback, the
//! shared ones.

use smallebot_application::ports::UserSkills;
use smallebot_protocol::api;

use super::{Skill, SkillCatalog, SkillSource, skill_files};
use crate::assembly::Home;

/// The skills of `home` as the web app shows them.
#[derive(Debug)]
pub struct HomeSkills {
    /// The home directory.
    pub home: Home,
    /// Whether users sign in (then each has their own folder on top of the shared one).
    pub per_user: bool,
}

impl HomeSkills {
    fn catalog(&self, user: &str) -> SkillCatalog {
        SkillCatalog::new(self.home.skill_folders(self.per_user.then_some(user)))
    }
}

fn source(source: SkillSource) -> api::SkillSource {
    match source {
        SkillSource::System => api::SkillSource::System,
        SkillSource::Shared => api::SkillSource::Shared,
        SkillSource::User => api::SkillSource::User,
    }
}

/// A skill as a web user sees it: its folder and the files its problems name relative
/// to its skills folder (`csv-summary`, `csv-summary/SKILL.md:3`), never the server's
/// absolute paths (`skills list` on the command line shows those).
fn summary(skill: &Skill) -> api::SkillSummary {
    let folder = skill
        .dir
        .file_name()
        .map_or_else(|| skill.name.clone(), |n| n.to_string_lossy().into_owned());
    let absolute = skill.dir.display().to_string();
    api::SkillSummary {
        name: skill.name.clone(),
        description: skill.description().to_owned(),
        source: source(skill.source),
        location: folder.clone(),
        problems: skill
            .problems
            .iter()
            .map(|problem| problem.replace(&absolute, &folder))
            .collect(),
    }
}

impl UserSkills for HomeSkills {
    fn list(&self, user: &str) -> api::SkillList {
        api::SkillList {
            skills: self
                .catalog(user)
                .current()
                .all
                .iter()
                .map(summary)
                .collect(),
        }
    }

    fn show(&self, user: &str, name: &str) -> Option<api::SkillDetail> {
        let set = self.catalog(user).current();
        let skill = set.find(name)?;
        let document = skill.document.as_ref()?;
        Some(api::SkillDetail {
            name: skill.name.clone(),
            description: document.description.clone(),
            body: document.body.clone(),
            files: skill_files(&skill.dir),
            allowed_tools: document.allowed_tools.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use crate::skills::{Skill, SkillSource};

    use super::summary;

    #[test]
    fn a_web_user_sees_no_server_path() {
        let dir = PathBuf::from("/srv/smallebot/home/users/carol/skills/broken");
        let skill = Skill {
            name: "broken".into(),
            source: SkillSource::User,
            dir: dir.clone(),
            document: None,
            problems: vec![format!(
                "{}/SKILL.md:2: the front matter has no description",
                dir.display()
            )],
        };
        let shown = summary(&skill);
        assert_eq!(shown.location, "broken");
        assert_eq!(
            shown.problems,
            ["broken/SKILL.md:2: the front matter has no description"]
        );
    }
}
