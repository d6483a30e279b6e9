//! Skills as the command line and the chat show them.

use std::path::Path;

use smallebot_agent::skills::{Skill, SkillSet, SkillSource, read_folder, skill_files};

use crate::TerminalError;

/// One line per skill (`NAME  SOURCE  description`), each problem indented under it.
pub fn list_lines(set: &SkillSet) -> Vec<String> {
    let width = set
        .all
        .iter()
        .map(|s| s.name.chars().count())
        .max()
        .unwrap_or(0);
    let mut lines = Vec::new();
    for skill in &set.all {
        let description = match &skill.document {
            Some(document) => one_line(&document.description),
            None => "(not loaded)".to_owned(),
        };
        lines.push(format!(
            "{:<width$}  {:<6}  {description}",
            skill.name,
            skill.source.as_str()
        ));
        for problem in &skill.problems {
            lines.push(format!("    problem: {problem}"));
        }
    }
    lines
}

/// A skill in full: where it is, its fields, its files and its instructions.
pub fn show_text(skill: &Skill) -> String {
    let mut out = format!(
        "{} ({}) in {}\n",
        skill.name,
        skill.source.as_str(),
        skill.dir.display()
    );
    for problem in &skill.problems {
        out.push_str(&format!("problem: {problem}\n"));
    }
    let Some(document) = &skill.document else {
        return out;
    };
    out.push_str(&format!(
        "description: {}\n",
        one_line(&document.description)
    ));
    if let Some(license) = &document.license {
        out.push_str(&format!("license: {license}\n"));
    }
    if let Some(compatibility) = &document.compatibility {
        out.push_str(&format!("compatibility: {compatibility}\n"));
    }
    for (key, value) in &document.metadata {
        out.push_str(&format!("metadata: {key} = {value}\n"));
    }
    if !document.allowed_tools.is_empty() {
        out.push_str(&format!(
            "allowed-tools: {} (shown only: grants nothing, every tool keeps its confirmation)\n",
            document.allowed_tools.join(" ")
        ));
    }
    let files = skill_files(&skill.dir);
    if !files.is_empty() {
        out.push_str(&format!("files: {}\n", files.join(", ")));
    }
    out.push('\n');
    out.push_str(document.body.trim());
    out
}

/// A description on one line.
fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

/// `skills show NAME`: the skill of that name in `set` (one that loads before a broken
/// folder of the same name, a shared or user one before the system's).
///
/// # Errors
/// No skill is called `name`.
pub fn shown_skill(set: &SkillSet, name: &str) -> Result<String, TerminalError> {
    set.all
        .iter()
        .filter(|s| s.name == name)
        .max_by_key(|s| (s.document.is_some(), s.source != SkillSource::System))
        .map(show_text)
        .ok_or_else(|| TerminalError::UnknownSkill(name.to_owned()))
}

/// `skills check DIR`: validates one folder, every problem printed to standard error.
///
/// # Errors
/// The folder does not load as a skill, or the output cannot be written.
pub fn check_skill(dir: &Path) -> Result<(), TerminalError> {
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
        None => Err(TerminalError::SkillCheckFailed(dir.display().to_string())),
    }
}
