//! docs/architecture.md stays a map that is true to the code:
//!
//! - it is at most [`MAX_LINES`] lines long (behaviour belongs in the behaviour docs);
//! - every repository path it writes in backticks exists — a path that starts with
//!   `crates/`, `xtask/`, `docs/` or `migrations/`, or any file name with an extension
//!   under a named folder (`src/lib.rs`); `{a,b}` alternatives are each checked, and a
//!   pattern (`*`) is refused, since it names no file;
//! - its crate table names every folder under `crates/`, each with the crates it depends
//!   on, which are exactly the `smallebot…` entries of that crate's `[dependencies]`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::collections::BTreeSet;
use std::path::Path;

/// The longest the map may grow.
const MAX_LINES: usize = 300;

/// Folders a repository path may start with.
const ROOTS: [&str; 4] = ["crates/", "xtask/", "docs/", "migrations/"];

fn architecture_doc() -> String {
    std::fs::read_to_string(support::workspace_root().join("docs/architecture.md")).unwrap()
}

/// The text of every inline code span of `markdown` (opened and closed by runs of as
/// many backticks), fenced blocks left out.
fn code_spans(markdown: &str) -> Vec<String> {
    let mut spans = Vec::new();
    let mut fenced = false;
    for line in markdown.lines() {
        let trimmed = line.trim_start();
        let after_fence = trimmed.trim_start_matches('`');
        if trimmed.len() - after_fence.len() >= 3 && !after_fence.contains('`') {
            fenced = !fenced;
            continue;
        }
        if !fenced {
            spans_of_line(line, &mut spans);
        }
    }
    spans
}

/// The code spans of one line, into `out`.
fn spans_of_line(line: &str, out: &mut Vec<String>) {
    let runs: Vec<(usize, usize)> = {
        let bytes = line.as_bytes();
        let mut runs = Vec::new();
        let mut at = 0;
        while at < bytes.len() {
            if bytes[at] == b'`' {
                let start = at;
                while at < bytes.len() && bytes[at] == b'`' {
                    at += 1;
                }
                runs.push((start, at - start));
            } else {
                at += 1;
            }
        }
        runs
    };
    let mut open = 0;
    while open < runs.len() {
        let (start, width) = runs[open];
        match runs[open + 1..].iter().position(|&(_, w)| w == width) {
            Some(offset) => {
                let close = open + 1 + offset;
                out.push(line[start + width..runs[close].0].trim().to_owned());
                open = close + 1;
            }
            None => open += 1,
        }
    }
}

/// The repository paths a code span names (none when it names no repository path).
fn repository_paths(span: &str) -> Vec<String> {
    let span = span.trim().trim_matches('`');
    let named_root = ROOTS.iter().any(|root| span.starts_with(root));
    let file_under_folder = span.contains('/')
        && span.starts_with(|c: char| c.is_ascii_alphanumeric())
        && span
            .rsplit('/')
            .next()
            .and_then(|name| name.rsplit_once('.'))
            .is_some_and(|(stem, ext)| {
                !stem.is_empty() && !ext.is_empty() && ext.chars().all(|c| c.is_alphanumeric())
            });
    if span.contains(char::is_whitespace) || span.contains("://") {
        return Vec::new();
    }
    if !named_root && !file_under_folder {
        return Vec::new();
    }
    expand_braces(span)
}

/// `a/{b,c}.rs` as `a/b.rs` and `a/c.rs` (one pair of braces).
fn expand_braces(path: &str) -> Vec<String> {
    match (path.find('{'), path.find('}')) {
        (Some(open), Some(close)) if open < close => path[open + 1..close]
            .split(',')
            .map(|alternative| format!("{}{}{}", &path[..open], alternative, &path[close + 1..]))
            .collect(),
        _ => vec![path.to_owned()],
    }
}

/// The paths of `markdown` that do not exist under `root`, in the order written.
fn stale_paths(markdown: &str, root: &Path) -> Vec<String> {
    let mut stale = Vec::new();
    for span in code_spans(markdown) {
        for path in repository_paths(&span) {
            let missing = path.contains('*') || !root.join(&path).exists();
            if missing && !stale.contains(&path) {
                stale.push(path);
            }
        }
    }
    stale
}

#[test]
fn the_map_is_at_most_300_lines() {
    let lines = architecture_doc().lines().count();
    assert!(
        lines <= MAX_LINES,
        "docs/architecture.md is {lines} lines, more than {MAX_LINES}: it is a map — move \
         behaviour (steps, defaults, limits, messages) to design.md or the page that describes it"
    );
}

#[test]
fn every_path_the_map_names_exists() {
    let doc = architecture_doc();
    let named = code_spans(&doc)
        .iter()
        .flat_map(|span| repository_paths(span))
        .count();
    assert!(named > 50, "the map names its places ({named} paths read)");
    let stale = stale_paths(&doc, &support::workspace_root());
    assert!(
        stale.is_empty(),
        "docs/architecture.md names paths that do not exist in the repository (update the \
         map to where the code lives now):\n  {}",
        stale.join("\n  ")
    );
}

#[test]
fn stale_paths_are_found_in_spans_braces_and_bare_folders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path();
    std::fs::create_dir_all(root.join("crates/a/src")).unwrap();
    std::fs::write(root.join("crates/a/src/lib.rs"), "").unwrap();
    std::fs::write(root.join("crates/a/src/one.rs"), "").unwrap();
    let doc = "Lives in `crates/a/src/lib.rs` and `crates/a/src/{one,two}.rs`,\n\
               `src/gone.rs`, `crates/b/`, `crates/a/src/*.rs`; not paths: `a::b`, \
               `<home>/x.md`, `agent.json`, `http://x/y.js`, `run --json`,\n\
               ```` ```diff ```` and `` `crates/c/src/lib.rs` `` in a span.\n\
               ```\n`crates/in/a/fence.rs`\n```\n";
    assert_eq!(
        stale_paths(doc, root),
        [
            "crates/a/src/two.rs",
            "src/gone.rs",
            "crates/b/",
            "crates/a/src/*.rs",
            "crates/c/src/lib.rs"
        ]
    );
    assert!(stale_paths("`crates/a/src/lib.rs`", root).is_empty());
}

/// The crate table: (folder under `crates/`, the short names it says the crate depends on).
fn crate_table(doc: &str) -> Vec<(String, BTreeSet<String>)> {
    doc.lines()
        .filter(|line| line.starts_with("| `smallebot"))
        .filter_map(|line| {
            let cells: Vec<&str> = line.split('|').map(str::trim).collect();
            let folder = cells.get(2)?.trim_matches('`');
            let name = folder.strip_prefix("crates/")?.trim_end_matches('/');
            let depends: BTreeSet<String> = cells
                .get(4)?
                .split(',')
                .map(str::trim)
                .filter(|d| !d.is_empty() && *d != "—")
                .map(str::to_owned)
                .collect();
            Some((name.to_owned(), depends))
        })
        .collect()
}

/// The `smallebot…` crates under `[dependencies]` of a manifest, without the prefix.
fn product_dependencies(manifest: &str) -> BTreeSet<String> {
    let mut section = "";
    let mut found = BTreeSet::new();
    for line in manifest.lines().map(str::trim) {
        if line.starts_with('[') {
            section = line;
        } else if section == "[dependencies]" && line.starts_with("smallebot") {
            let name: String = line
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '-')
                .collect();
            let short = name.strip_prefix("smallebot-").unwrap_or(&name);
            found.insert(short.to_owned());
        }
    }
    found
}

#[test]
fn the_crate_table_names_every_crate_and_its_arrows() {
    let root = support::workspace_root();
    let table = crate_table(&architecture_doc());
    let listed: BTreeSet<&str> = table.iter().map(|(name, _)| name.as_str()).collect();
    let folders: BTreeSet<String> = std::fs::read_dir(root.join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    let unlisted: Vec<&String> = folders
        .iter()
        .filter(|f| !listed.contains(f.as_str()))
        .collect();
    assert!(
        unlisted.is_empty(),
        "crates missing from docs/architecture.md's crate table: {unlisted:?}"
    );
    let mut wrong = Vec::new();
    for (name, said) in &table {
        let manifest =
            std::fs::read_to_string(root.join("crates").join(name).join("Cargo.toml")).unwrap();
        let actual = product_dependencies(&manifest);
        if &actual != said {
            wrong.push(format!(
                "crates/{name}: the map says {said:?}, Cargo.toml's [dependencies] say {actual:?}"
            ));
        }
    }
    assert!(
        wrong.is_empty(),
        "docs/architecture.md's crate table disagrees with the manifests:\n  {}",
        wrong.join("\n  ")
    );
}

#[test]
fn dependencies_are_read_from_the_dependencies_section_only() {
    let manifest = "[package]\nname = \"smallebot-x\"\n\n[dependencies]\n\
                    smallebot-core.workspace = true\nsmallebot = { path = \"..\" }\nserde = \"1\"\n\
                    \n[dev-dependencies]\nsmallebot-testkit.workspace = true\n";
    assert_eq!(
        product_dependencies(manifest),
        BTreeSet::from(["core".to_owned(), "smallebot".to_owned()])
    );
    let doc = "| `smallebot-x` | `crates/x/` | role | core, protocol |\n\
               | `smallebot-y` | `crates/y/` | role | — |\n| `xtask` | `xtask/` | r | — |\n";
    assert_eq!(
        crate_table(doc),
        [
            (
                "x".to_owned(),
                BTreeSet::from(["core".to_owned(), "protocol".to_owned()])
            ),
            ("y".to_owned(), BTreeSet::new())
        ]
    );
}
