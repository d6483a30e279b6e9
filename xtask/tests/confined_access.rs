//! The trust boundary by construction: the host process is unconfined, so every file it
//! opens, creates, renames or deletes in a tree that a model, a command or a user can
//! change (the workspaces, attachments' saved copies, skills folders) goes through the
//! confined module, `smallebot-confined` — resolved beneath a handle on the tree's root,
//! no link followed for the host's own writes, only regular files read. Nothing else in
//! these crates may touch the file system directly: no `std::fs`/`tokio::fs` function,
//! no `File::open`/`create`, no `OpenOptions`, no `tempfile`, no raw `rustix::fs`, no
//! `Path` method that reads the file system (`canonicalize`, `symlink_metadata`,
//! `read_dir`, `read_link`, `try_exists`, `metadata`), except in the files listed in
//! [`ALLOWED`], each for a reason that keeps it outside such trees.
//!
//! `Path::is_dir`/`is_file`/`exists` are not told apart here from the confined
//! module's own `Metadata::is_dir`/`is_file` and are left out: they only stat, they
//! never open, create or remove anything.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

/// The crates whose every file is held to the rule (the stores, the sandbox, the
/// testkit and the terminal renderer work on their own files, never in a tree a model
/// or command changes; `smallebot-confined` is the module itself).
const GUARDED_CRATES: [&str; 11] = [
    "core",
    "checkpoints",
    "shell",
    "protocol",
    "application",
    "agent",
    "model-client",
    "mcp",
    "web",
    "terminal",
    "host",
];

/// The files of the guarded crates that may use the file system directly, and why.
/// Every entry must still do so (a stale entry fails, so the list stays exact).
const ALLOWED: [(&str, &str); 8] = [
    (
        "crates/agent/src/config/json.rs",
        "reads the home's configuration files (agent.json, terminal.json, mcp.json): the \
         person's own, out of every command's reach",
    ),
    (
        "crates/agent/src/summarizer/prompt.rs",
        "reads the compaction prompt in <home>/sys.skills, the system's own skill folder, \
         which no model, command or web user writes",
    ),
    (
        "crates/agent/src/skills/catalog.rs",
        "stats the skills folders (modification times and sizes) to notice a change; it \
         never opens, creates or removes a file",
    ),
    (
        "crates/agent/src/tools/workspace/resolve.rs",
        "creates the configured workspace root (the host's own path) and canonicalizes a \
         model's path to word the tools' refusals; every open, listing and creation of \
         the tools goes through the confined module",
    ),
    (
        "crates/terminal/src/regular_file.rs",
        "reads a file the person names on the terminal (run --attach, @path, /attach): \
         their own file, wherever it is; only a regular file, at most the limit and a byte",
    ),
    (
        "crates/terminal/src/export_file.rs",
        "writes an export to the path the person typed (conversations export --output, \
         /export): their own file, never replaced by surprise",
    ),
    (
        "crates/terminal/src/chat/path_complete.rs",
        "Tab completion lists the person's own folders",
    ),
    (
        "crates/host/src/commands/mod.rs",
        "finds the home from the person's current directory (a .agents folder, a .git \
         boundary)",
    ),
];

/// What touches the file system directly.
const DIRECT: [&str; 14] = [
    "tokio::fs::",
    "use std::fs;",
    "use tokio::fs;",
    "File::open(",
    "File::create(",
    "File::create_new(",
    "OpenOptions",
    "tempfile::",
    "rustix::fs::",
    ".canonicalize()",
    ".symlink_metadata()",
    ".read_dir()",
    ".read_link()",
    ".try_exists()",
];

/// The direct file-system uses in `code`: the [`DIRECT`] patterns, a `std::fs`
/// function (`std::fs::read`, `std::fs::create_dir_all`; its types such as `File` are
/// fine) and `Path::metadata()`/`File::metadata()` (no argument, unlike the confined
/// module's `metadata(path)`).
fn direct_uses(code: &str) -> Vec<String> {
    let mut found: Vec<String> = DIRECT
        .iter()
        .filter(|pattern| code.contains(**pattern))
        .map(|pattern| (*pattern).to_owned())
        .collect();
    for (at, _) in code.match_indices("std::fs::") {
        let rest = &code[at + "std::fs::".len()..];
        if rest.starts_with(|c: char| c.is_ascii_lowercase() || c == '{') {
            let name: String = rest
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_' || *c == '{')
                .collect();
            found.push(format!("std::fs::{name}"));
        }
    }
    if code.contains(".metadata()") {
        found.push(".metadata()".to_owned());
    }
    found.sort();
    found.dedup();
    found
}

#[test]
fn only_the_confined_module_touches_trees_a_model_or_command_changes() {
    let sources = support::product_sources(&GUARDED_CRATES);
    assert!(
        sources
            .iter()
            .any(|(p, _)| p.ends_with("history/attachments.rs")),
        "the agent's sources were read"
    );
    let mut offenders = Vec::new();
    let mut used_allowances = Vec::new();
    for (path, code) in &sources {
        let uses = direct_uses(code);
        if uses.is_empty() {
            continue;
        }
        if ALLOWED.iter().any(|(allowed, _)| allowed == path) {
            used_allowances.push(path.clone());
        } else {
            offenders.push(format!("{path}: {}", uses.join(", ")));
        }
    }
    assert!(
        offenders.is_empty(),
        "these files touch the file system directly; open, create, list, rename and \
         remove through smallebot_confined::Root instead (Links::Refuse for the host's \
         own writes), or — for a file that is no tree a model, command or user can \
         change — add it to ALLOWED with the reason:\n{}",
        offenders.join("\n")
    );
    let stale: Vec<&str> = ALLOWED
        .iter()
        .map(|(path, _)| *path)
        .filter(|path| !used_allowances.iter().any(|used| used == path))
        .collect();
    assert!(
        stale.is_empty(),
        "these files are allowed direct file-system access but no longer use it; take \
         them off ALLOWED: {stale:?}"
    );
}

#[test]
fn the_rule_sees_a_direct_call_and_lets_types_and_the_module_pass() {
    for offending in [
        "fn f(p: &Path) { std::fs::create_dir_all(p).ok(); }",
        "let text = std::fs::read_to_string(&file)?;",
        "let f = std::fs::OpenOptions::new().write(true).open(p);",
        "let f = File::open(path)?;",
        "tokio::fs::write(path, text).await?;",
        "use std::fs;",
        "let real = path.canonicalize()?;",
        "let m = path.metadata()?;",
        "for e in dir.read_dir()? {}",
        "let t = tempfile::tempdir_in(root)?;",
        "rustix::fs::openat(dir, name, flags, mode)?;",
        "use std::fs::{self, File};",
    ] {
        assert!(!direct_uses(offending).is_empty(), "not seen: {offending}");
    }
    for fine in [
        "fn f(file: &std::fs::File) {}",
        "let _ = file.set_permissions(std::fs::Permissions::from_mode(0o755));",
        "let meta = root.metadata(resolved.relative())?;",
        "let entries = root.read_dir(prefix)?;",
        "let file = root.create_new(&candidate)?;",
        "if metadata.is_dir() {}",
    ] {
        assert!(direct_uses(fine).is_empty(), "taken for direct: {fine}");
    }
}
