//! `GenerateSkill`: the model writes a new skill into the user's skills folder.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};
use smallebot_confined::{ConfinedError, Links, Root};
use smallebot_core::rules::workspace_path::check_relative_path;
use smallebot_core::skills::{SKILL_FILE, description_problem, name_problem, parse_skill};

use crate::skills::{SkillCatalog, SkillFolders};
use crate::tools::TypedTool;
use crate::tools::workspace::run_blocking;

/// The most files one call writes besides `SKILL.md`.
const FILES_MAX: usize = 50;
/// The most bytes one call writes in all.
const BYTES_MAX: usize = 1024 * 1024;

/// Writes a skill (a folder with `SKILL.md` and optional files) that later turns list.
#[derive(Debug, Clone)]
pub struct GenerateSkill {
    catalog: Arc<SkillCatalog>,
}

impl GenerateSkill {
    /// The name the model calls it by.
    pub const NAME: &'static str = "GenerateSkill";

    /// The tool writing into `catalog`'s writable folder.
    #[must_use]
    pub fn new(catalog: Arc<SkillCatalog>) -> Self {
        Self { catalog }
    }
}

/// One file of a new skill.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SkillFileArg {
    /// Path relative to the skill's folder, e.g. 'scripts/report.py' or 'references/notes.md'.
    pub path: String,
    /// The file's text.
    pub content: String,
}

/// `GenerateSkill`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct GenerateSkillArgs {
    /// 1-64 lowercase letters, digits and hyphens (not at the start or end), e.g. 'csv-report'.
    pub name: String,
    /// What the skill does and when to use it (1-1024 characters); this is what later turns see.
    pub description: String,
    /// The instructions: Markdown that follows the front matter of SKILL.md.
    pub body: String,
    /// More files of the skill (scripts/, references/, assets/).
    #[serde(default)]
    pub files: Option<Vec<SkillFileArg>>,
    /// Replace an existing skill of the same name (default false).
    #[serde(default)]
    pub overwrite: Option<bool>,
}

#[async_trait]
impl TypedTool for GenerateSkill {
    type Args = GenerateSkillArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::MUTATING
    }

    fn description(&self) -> String {
        "Save a procedure as a skill that later turns can load with ReadSkill: writes \
         SKILL.md (name, description, instructions) and optional files such as scripts. \
         Never replaces an existing skill unless overwrite is true."
            .into()
    }

    async fn run(&self, args: GenerateSkillArgs, context: &ToolContext) -> ToolOutcome {
        let catalog = Arc::clone(&self.catalog);
        run_blocking(context, move || match generate(&catalog, &args) {
            Ok(text) => ToolOutcome::ok(text),
            Err(why) => {
                ToolOutcome::error(format!("Error: GenerateSkill: {why}; nothing was written"))
            }
        })
        .await
    }
}

/// The text of `SKILL.md` for the arguments (the description quoted as a YAML string).
fn skill_text(args: &GenerateSkillArgs) -> String {
    let quoted = serde_json::to_string(args.description.trim()).unwrap_or_default();
    format!(
        "---\nname: {}\ndescription: {quoted}\n---\n\n{}\n",
        args.name,
        args.body.trim()
    )
}

fn generate(catalog: &SkillCatalog, args: &GenerateSkillArgs) -> Result<String, String> {
    if let Some(problem) =
        name_problem(&args.name, None).or_else(|| description_problem(&args.description))
    {
        return Err(problem);
    }
    let text = skill_text(args);
    let (document, problems) = parse_skill(&text, Some(&args.name));
    if document.is_none() {
        let rules: Vec<String> = problems.into_iter().map(|p| p.rule).collect();
        return Err(rules.join("; "));
    }
    let files = checked_files(args.files.as_deref().unwrap_or_default(), text.len())?;
    let root_path = catalog.folders().writable().to_path_buf();
    let target = root_path.join(&args.name);
    let overwrite = args.overwrite.unwrap_or(false);
    let root = Root::create(&root_path, Links::Refuse)
        .map_err(|e| format!("could not open the skills folder ({e})"))?;
    let existing = catalog.current().find(&args.name).map(|s| s.dir.clone());
    let present = root.symlink_metadata(&args.name).is_ok();
    let clash = existing.as_ref().or(present.then_some(&target));
    if let Some(dir) = clash
        && !overwrite
    {
        return Err(clash_refusal(catalog.folders(), &args.name, dir));
    }
    write_skill(&root, &args.name, &text, &files)?;
    let mut written: Vec<&str> = vec![SKILL_FILE];
    written.extend(files.iter().map(|(path, _)| path.as_str()));
    Ok(format!(
        "Wrote skill '{}' to {} ({}). It is listed under # Skills from the next request on; \
         load it with ReadSkill {{\"name\": \"{}\"}}.",
        args.name,
        target.display(),
        written.join(", "),
        args.name
    ))
}

/// Why a skill called `name` is not written over the one at `dir`. A user with their
/// own folder (multi-user `serve`) who names a shared skill is told what `overwrite`
/// does there: it saves their own copy, which they see instead of the shared one; the
/// shared skill stays as it is.
fn clash_refusal(folders: &SkillFolders, name: &str, dir: &Path) -> String {
    if folders.user.is_some() && dir.starts_with(&folders.shared) {
        format!(
            "a shared skill called '{name}' already exists; choose another name, or pass \
             overwrite: true to save your own version of it, which you will see instead of \
             the shared one (the shared skill stays as it is for everyone else)"
        )
    } else {
        format!(
            "a skill called '{name}' already exists at {}; choose another name, or pass \
             overwrite: true to replace it",
            dir.display()
        )
    }
}

/// The files as (normalized relative path, text), checked: relative, inside the
/// folder, not `SKILL.md`, within the count and size limits.
fn checked_files(files: &[SkillFileArg], mut bytes: usize) -> Result<Vec<(String, &str)>, String> {
    if files.len() > FILES_MAX {
        return Err(format!(
            "{} files given; at most {FILES_MAX} can be written at once",
            files.len()
        ));
    }
    let mut checked = Vec::new();
    for file in files {
        let path = check_relative_path(&file.path).map_err(|e| {
            format!(
                "file '{}': {e} (paths are relative to the skill's folder)",
                file.path
            )
        })?;
        let path = path.to_relative_string();
        if path.is_empty() || path == SKILL_FILE {
            return Err(format!(
                "file '{}' cannot be written: give the instructions as 'body' and other files \
                 their own paths",
                file.path
            ));
        }
        bytes += file.content.len();
        checked.push((path, file.content.as_str()));
    }
    if bytes > BYTES_MAX {
        return Err(format!(
            "the skill has {bytes} bytes; at most {BYTES_MAX} can be written"
        ));
    }
    Ok(checked)
}

/// A name for a folder of its own beside the skills (`.new-skill-…`, `.old-skill-…`).
fn scratch_name(kind: &str) -> String {
    format!(
        ".{kind}-skill-{}-{:016x}",
        std::process::id(),
        rand::random::<u64>()
    )
}

/// Writes the skill `name` into a fresh folder beside it in `root`, then puts it in
/// place (replacing what was there), so a failure leaves no half-written skill. Every
/// file and folder is made beneath the skills folder without following a link.
fn write_skill(
    root: &Root,
    name: &str,
    text: &str,
    files: &[(String, &str)],
) -> Result<(), String> {
    let shown = |path: &str| root.path().join(path).display().to_string();
    let staging = scratch_name("new");
    root.create_dir(&staging).map_err(|e| {
        format!(
            "could not create a folder in {} ({e})",
            root.path().display()
        )
    })?;
    let written = write_files(root, &staging, &root.path().join(name), text, files);
    if let Err(why) = written {
        let _ = root.remove_dir_all(&staging);
        return Err(why);
    }
    let old = match root.symlink_metadata(name) {
        Ok(_) => {
            let old = scratch_name("old");
            if let Err(e) = root.rename(name, &old) {
                let _ = root.remove_dir_all(&staging);
                return Err(format!("could not move aside {} ({e})", shown(name)));
            }
            Some(old)
        }
        Err(ConfinedError::NotFound { .. }) => None,
        Err(e) => {
            let _ = root.remove_dir_all(&staging);
            return Err(format!("could not examine {} ({e})", shown(name)));
        }
    };
    if let Err(e) = root.rename(&staging, name) {
        if let Some(old) = &old {
            let _ = root.rename(old, name);
        }
        let _ = root.remove_dir_all(&staging);
        return Err(format!("could not put in place {} ({e})", shown(name)));
    }
    if let Some(old) = old {
        let _ = root.remove_dir_all(&old);
    }
    Ok(())
}

/// Writes `SKILL.md` and `files` into the folder `staging` beneath `root` (named in
/// messages by where they are going, `target`); scripts are made executable.
fn write_files(
    root: &Root,
    staging: &str,
    target: &Path,
    text: &str,
    files: &[(String, &str)],
) -> Result<(), String> {
    let write = |relative: &str, content: &str| -> Result<(), String> {
        let path = format!("{staging}/{relative}");
        let shown = target.join(relative).display().to_string();
        if let Some((parent, _)) = path.rsplit_once('/') {
            root.create_dirs(parent)
                .map_err(|e| format!("could not create the folder of {shown} ({e})"))?;
        }
        let mut file = root
            .create_new(&path)
            .map_err(|e| format!("could not write {shown} ({e})"))?;
        file.write_all(content.as_bytes())
            .map_err(|e| format!("could not write {shown} ({e})"))?;
        if relative.starts_with("scripts/") {
            make_executable(&file);
        }
        Ok(())
    };
    write(SKILL_FILE, text)?;
    for (path, content) in files {
        write(path, content)?;
    }
    Ok(())
}

/// Scripts are made executable (owner, group, others may run them), on the open file.
fn make_executable(file: &std::fs::File) {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let _ = file.set_permissions(std::fs::Permissions::from_mode(0o755));
    }
    #[cfg(not(unix))]
    let _ = file;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn args(name: &str) -> GenerateSkillArgs {
        GenerateSkillArgs {
            name: name.to_owned(),
            description: "Does it.".to_owned(),
            body: "Steps.".to_owned(),
            files: None,
            overwrite: None,
        }
    }

    fn write(dir: &Path, name: &str) {
        std::fs::create_dir_all(dir.join(name)).unwrap();
        std::fs::write(
            dir.join(name).join(SKILL_FILE),
            format!("---\nname: {name}\ndescription: Theirs.\n---\nSteps.\n"),
        )
        .unwrap();
    }

    #[test]
    fn a_clash_says_what_overwrite_would_do_for_this_user() {
        let home = tempfile::tempdir().unwrap();
        let (shared, own) = (home.path().join("skills"), home.path().join("own"));
        write(&shared, "shared-one");
        write(&own, "my-own");
        let folders = |user: Option<PathBuf>| SkillFolders {
            system: home.path().join("sys.skills"),
            shared: shared.clone(),
            user,
        };
        let multi = SkillCatalog::new(folders(Some(own.clone())));
        let refused = generate(&multi, &args("shared-one")).unwrap_err();
        assert_eq!(
            refused,
            "a shared skill called 'shared-one' already exists; choose another name, or pass \
             overwrite: true to save your own version of it, which you will see instead of \
             the shared one (the shared skill stays as it is for everyone else)"
        );
        let refused = generate(&multi, &args("my-own")).unwrap_err();
        assert_eq!(
            refused,
            format!(
                "a skill called 'my-own' already exists at {}; choose another name, or pass \
                 overwrite: true to replace it",
                own.join("my-own").display()
            )
        );
        // Alone, the shared folder is the user's own: overwrite replaces the skill.
        let single = SkillCatalog::new(folders(None));
        let refused = generate(&single, &args("shared-one")).unwrap_err();
        assert!(
            refused.starts_with("a skill called 'shared-one' already exists at ")
                && refused.ends_with("overwrite: true to replace it"),
            "{refused}"
        );
    }
}
