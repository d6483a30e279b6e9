//! The official MCP reference servers that run offline (the `modelcontextprotocol`
//! project's npm packages), installed by `npm ci --prefix crates/testkit/reference-servers`
//! from the pinned `package-lock.json` there.
//!
//! Without them (or without `node`) the tests that use them print one loud line and pass
//! as skipped — unless [`REQUIRE_REFERENCE_SERVERS_ENV`]`=1` (set by CI after installing
//! them), where a missing server fails them.

use std::path::PathBuf;

/// Set to `1`, a missing reference server fails the tests instead of skipping them.
pub const REQUIRE_REFERENCE_SERVERS_ENV: &str = "SMALLEBOT_REQUIRE_MCP_REFERENCE";

/// How to install them, said when they are missing.
pub const INSTALL_HINT: &str = "npm ci --prefix crates/testkit/reference-servers";

/// A reference server to start over stdio: `program` with `args`.
#[derive(Debug, Clone)]
pub struct ReferenceServer {
    /// The program (`node`).
    pub program: String,
    /// Its arguments (the server's script, `stdio`).
    pub args: Vec<String>,
}

/// `@modelcontextprotocol/server-everything` (tools, resources, templates, prompts,
/// elicitation and sampling requests), or `None` (with one loud line naming `test`) when
/// it is not installed and [`REQUIRE_REFERENCE_SERVERS_ENV`] is not `1`.
///
/// # Panics
/// When it is required but missing: the test fails, saying how to install it.
#[allow(clippy::panic)]
#[must_use]
pub fn everything(test: &str) -> Option<ReferenceServer> {
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join(
        "reference-servers/node_modules/@modelcontextprotocol/server-everything/dist/index.js",
    );
    let node = node_on_path();
    if script.is_file() && node {
        return Some(ReferenceServer {
            program: "node".to_owned(),
            args: vec![script.display().to_string(), "stdio".to_owned()],
        });
    }
    let missing = if node {
        format!("{} is not installed", script.display())
    } else {
        "node is not on PATH".to_owned()
    };
    if std::env::var(REQUIRE_REFERENCE_SERVERS_ENV).as_deref() == Ok("1") {
        panic!("{test}: {REQUIRE_REFERENCE_SERVERS_ENV}=1 but {missing} ({INSTALL_HINT})");
    }
    eprintln!(
        "!!! SKIPPED {test}: the MCP reference servers are missing: {missing} ({INSTALL_HINT})"
    );
    None
}

fn node_on_path() -> bool {
    std::env::var_os("PATH")
        .is_some_and(|path| std::env::split_paths(&path).any(|dir| dir.join("node").is_file()))
}
