//! Rules about the shape of the code that a compiler does not check:
//!
//! - one shell lexer in the tree, in the `smallebot-shell` crate (the command policy
//!   and the written-file detection both read its result);
//! - a tool's name is written in one place only, the tool's own file: nothing else
//!   (plan tracking, the host, core) may match tools by a name literal;
//! - no `println!`/`eprintln!` (they panic when the reader of a pipe has gone: the
//!   host and terminal write through the terminal's `outln!`/`errln!`);
//! - no crate holds more than a fifth of the product code (a room a newcomer can read),
//!   and the binary stays thin (command-line parsing and the composition root).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod support;

use std::path::Path;
use std::sync::Arc;

use smallebot_agent::assembly::AgentAssembly;
use smallebot_infrastructure::{FileTaskStore, SqliteStore};
use smallebot_model_client::ChatEndpoint;

/// The product code of every product crate (see `support::product_crates`): a crate
/// added later is checked without being listed here.
fn product_sources() -> Vec<(String, String)> {
    let crates = support::product_crates();
    let names: Vec<&str> = crates.iter().map(String::as_str).collect();
    support::product_sources(&names)
}

/// Asserts that each of `definitions` occurs in exactly one file of `sources`, under
/// `home` (`why` says where it belongs and why).
fn defined_once_under(sources: &[(String, String)], definitions: &[&str], home: &str, why: &str) {
    for definition in definitions {
        let defining: Vec<&str> = sources
            .iter()
            .filter(|(_, code)| code.contains(definition))
            .map(|(path, _)| path.as_str())
            .collect();
        assert_eq!(
            defining.len(),
            1,
            "`{definition}` should be defined once, in {home} ({why}): {defining:?}"
        );
        assert!(defining[0].starts_with(home), "{definition}: {defining:?}");
    }
}

#[test]
fn there_is_one_shell_lexer() {
    defined_once_under(
        &product_sources(),
        &[
            "struct Lexer",
            "fn tokenize(",
            "struct PendingHereDoc",
            "enum Redirect",
        ],
        "crates/shell/src/syntax/",
        "one parser for every reader of a command line",
    );
}

/// Every crate whose events or wire entities could be defined a second time.
const EVENT_CRATES: [&str; 8] = [
    "core",
    "application",
    "agent",
    "model-client",
    "web",
    "terminal",
    "host",
    "protocol",
];

#[test]
fn each_event_and_wire_entity_is_defined_once_in_the_protocol() {
    defined_once_under(
        &support::product_sources(&EVENT_CRATES),
        &[
            "enum EventKind",
            "enum CompressionTrigger",
            "struct Plan ",
            "enum ConfirmEvent",
            "enum ElicitEvent",
            "enum ReloadEvent",
        ],
        "crates/protocol/src/",
        "front ends and the application use the protocol's types",
    );
}

#[tokio::test]
async fn a_tool_name_is_written_only_in_its_own_tool() {
    let home = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let agent = AgentAssembly::from_home_with_env(home.path(), &|_| None)
        .unwrap()
        .store(Arc::new(store.clone()))
        .task_store(Arc::new(FileTaskStore::new(home.path().join("tasks"))))
        .endpoint(ChatEndpoint::new("http://127.0.0.1:9", "unused"))
        .build()
        .unwrap();
    let names: Vec<String> = agent
        .service
        .tools()
        .iter()
        .map(|t| t.name.clone())
        .collect();
    assert!(names.len() >= 15, "every built-in tool: {names:?}");
    let sources = product_sources();
    for name in &names {
        let literal = format!("\"{name}\"");
        let holders: Vec<&str> = sources
            .iter()
            .filter(|(_, code)| code.contains(&literal))
            .map(|(path, _)| path.as_str())
            .collect();
        assert!(
            holders.len() <= 1
                && holders
                    .iter()
                    .all(|p| p.starts_with("crates/agent/src/tools/")),
            "the name {literal} must appear only in the tool that owns it, found in {holders:?}"
        );
    }
    store.close().await;
}

#[test]
fn the_pipeline_modules_import_each_other_without_a_cycle() {
    let dir = support::workspace_root().join("crates/application/src/pipeline");
    let mut files = Vec::new();
    support::rust_files(&dir, &mut files);
    let module = |path: &Path| path.file_stem().unwrap().to_str().unwrap().to_owned();
    let modules: Vec<String> = files.iter().map(|p| module(p)).collect();
    // module → the sibling modules it imports with `use super::name`
    let imports: Vec<(String, Vec<String>)> = files
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path).unwrap();
            let used = modules
                .iter()
                .filter(|m| text.contains(&format!("use super::{m}::")))
                .cloned()
                .collect();
            (module(path), used)
        })
        .collect();
    // Depth-first search for a path back to the start.
    fn reaches(
        from: &str,
        target: &str,
        imports: &[(String, Vec<String>)],
        seen: &mut Vec<String>,
    ) -> bool {
        let Some((_, used)) = imports.iter().find(|(m, _)| m == from) else {
            return false;
        };
        used.iter().any(|next| {
            if next == target {
                return true;
            }
            if seen.contains(next) {
                return false;
            }
            seen.push(next.clone());
            reaches(next, target, imports, seen)
        })
    }
    assert!(
        imports
            .iter()
            .any(|(m, used)| m == "service" && !used.is_empty())
    );
    for (module, _) in &imports {
        assert!(
            !reaches(module, module, &imports, &mut Vec::new()),
            "pipeline/{module}.rs imports itself through its siblings: {imports:?}"
        );
    }
}

#[test]
fn product_code_never_prints_with_the_macros_that_panic_on_a_closed_pipe() {
    let panicking = ["println!(", "eprintln!(", "print!(", "eprint!("];
    let offenders: Vec<String> = product_sources()
        .into_iter()
        .filter(|(path, _)| !path.ends_with("terminal/src/stdio.rs"))
        .filter_map(|(path, code)| {
            let found: Vec<&str> = panicking
                .iter()
                .copied()
                .filter(|m| {
                    code.match_indices(m).any(|(at, _)| {
                        // `eprintln!(` also contains `println!(`: only whole names.
                        !code[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
                    })
                })
                .collect();
            (!found.is_empty()).then(|| format!("{path}: {found:?}"))
        })
        .collect();
    assert!(
        offenders.is_empty(),
        "these files print with macros that panic when standard output or error is a \
         closed pipe; use the terminal crate's outln!/out!/errln! instead:\n{}",
        offenders.join("\n")
    );
}

/// The most of the product code one crate may hold, in percent.
const MOST_OF_THE_PRODUCT_CODE_IN_ONE_CRATE: usize = 20;

#[test]
fn no_crate_holds_more_than_a_fifth_of_the_product_code() {
    let crates = support::product_crates();
    assert!(crates.len() >= 10, "the product crates: {crates:?}");
    // Lines of product code: comment lines, test files and test modules left out.
    let lines: Vec<(String, usize)> = crates
        .iter()
        .map(|name| {
            let code: usize = support::product_sources(&[name.as_str()])
                .iter()
                .map(|(_, code)| code.lines().count())
                .sum();
            (name.clone(), code)
        })
        .collect();
    let total: usize = lines.iter().map(|(_, n)| n).sum();
    let too_big: Vec<String> = lines
        .iter()
        .filter(|(_, n)| n * 100 > total * MOST_OF_THE_PRODUCT_CODE_IN_ONE_CRATE)
        .map(|(name, n)| {
            let tenths = n * 1000 / total;
            format!(
                "crates/{name} holds {n} of {total} lines ({}.{} %)",
                tenths / 10,
                tenths % 10
            )
        })
        .collect();
    assert!(
        too_big.is_empty(),
        "no crate may hold more than {MOST_OF_THE_PRODUCT_CODE_IN_ONE_CRATE} % of the product \
         code; split these along their concerns into crates of their own:\n{}",
        too_big.join("\n")
    );
}

/// The most lines the binary's sources may have (every line of every file under
/// `crates/host/src`, comments and unit tests included).
const MOST_LINES_OF_THE_BINARY: usize = 2_500;

#[test]
fn the_binary_stays_thin() {
    // The binary parses the command line and wires the crates (the composition root);
    // a front end's behaviour belongs to its crate (terminal, web), a use case to the
    // application, an adapter to its own crate.
    let mut files = Vec::new();
    let mut dirs = vec![support::workspace_root().join("crates/host/src")];
    while let Some(dir) = dirs.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                dirs.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    assert!(files.len() >= 10, "the binary's sources: {files:?}");
    let lines: usize = files
        .iter()
        .map(|path| std::fs::read_to_string(path).unwrap().lines().count())
        .sum();
    assert!(
        lines < MOST_LINES_OF_THE_BINARY,
        "crates/host/src has {lines} lines (fewer than {MOST_LINES_OF_THE_BINARY} allowed): \
         move what is not command-line parsing or wiring into the crate whose concern it is"
    );
}
