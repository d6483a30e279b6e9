//! A temp home with a workspace, things outside it to attack, and the six file tools.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::Value;
use smallebot_agent::tools::{ToolRegistry, workspace_tools};
use smallebot_application::ports::{ToolContext, ToolExecutor, ToolInvocation, ToolOutcome};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::{ConversationId, TurnId};
use tempfile::TempDir;
use tokio_util::sync::CancellationToken;

/// `base/` holds `sentinel.txt`, `outside/inside.txt`, `home/workspace2/secret.txt` and
/// the workspace `home/workspace/` (created by the tools on first use).
pub struct Fixture {
    _dir: TempDir,
    /// The canonical temp dir.
    pub base: PathBuf,
    /// The workspace root.
    pub root: PathBuf,
    /// The six tools.
    pub registry: ToolRegistry,
}

impl Fixture {
    pub fn new() -> Self {
        let dir = tempfile::tempdir().unwrap();
        let base = dir.path().canonicalize().unwrap();
        std::fs::write(base.join("sentinel.txt"), "sentinel").unwrap();
        std::fs::create_dir_all(base.join("outside")).unwrap();
        std::fs::write(base.join("outside/inside.txt"), "outside secret").unwrap();
        std::fs::create_dir_all(base.join("home/workspace2")).unwrap();
        std::fs::write(base.join("home/workspace2/secret.txt"), "sibling secret").unwrap();
        let root = base.join("home/workspace");
        let registry = workspace_tools(root.clone())
            .into_iter()
            .fold(ToolRegistry::new(), ToolRegistry::with);
        Self {
            _dir: dir,
            base,
            root,
            registry,
        }
    }

    /// Creates the workspace with links pointing out, a loop and a dangling link.
    pub fn with_links() -> Self {
        let fixture = Self::new();
        let root = &fixture.root;
        std::fs::create_dir_all(root).unwrap();
        symlink(fixture.base.join("sentinel.txt"), root.join("out_link")).unwrap();
        symlink(fixture.base.join("outside"), root.join("out_dir")).unwrap();
        symlink("../workspace2", root.join("sibling_link")).unwrap();
        symlink("loop_b", root.join("loop_a")).unwrap();
        symlink("loop_a", root.join("loop_b")).unwrap();
        symlink(fixture.base.join("outside/new.txt"), root.join("dangling")).unwrap();
        fixture
    }

    pub fn context() -> ToolContext {
        ToolContext::in_turn(
            ConversationId::new(),
            TurnId::new(),
            CancellationToken::new(),
        )
    }

    /// Calls `tool` with arguments given as JSON text.
    pub async fn call_text(&self, tool: &str, arguments: &str) -> ToolOutcome {
        let invocation = ToolInvocation {
            call_id: "call_1".into(),
            name: tool.into(),
            arguments: arguments.into(),
        };
        self.registry.execute(&invocation, &Self::context()).await
    }

    pub async fn call(&self, tool: &str, arguments: Value) -> ToolOutcome {
        self.call_text(tool, &arguments.to_string()).await
    }

    /// Calls and asserts success; returns the text.
    pub async fn ok(&self, tool: &str, arguments: Value) -> String {
        let outcome = self.call(tool, arguments.clone()).await;
        assert_eq!(
            outcome.status,
            ToolCallStatus::Ok,
            "{tool} {arguments}: {}",
            outcome.content
        );
        outcome.content
    }

    /// Calls and asserts an `Error: …` result; returns the text.
    pub async fn err(&self, tool: &str, arguments: Value) -> String {
        let outcome = self.call(tool, arguments.clone()).await;
        assert_ne!(outcome.status, ToolCallStatus::Ok, "{tool} {arguments}");
        assert!(
            outcome.content.starts_with("Error: "),
            "{tool} {arguments}: {}",
            outcome.content
        );
        outcome.content
    }

    pub fn write(&self, relative: &str, content: impl AsRef<[u8]>) {
        let path = self.root.join(relative);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, content).unwrap();
    }

    pub fn read(&self, relative: &str) -> String {
        std::fs::read_to_string(self.root.join(relative)).unwrap()
    }

    /// Everything under `base` except the workspace: files with content, dirs, links.
    pub fn outside_snapshot(&self) -> BTreeMap<PathBuf, String> {
        let mut snapshot = BTreeMap::new();
        snap(&self.base, &self.root, &mut snapshot);
        snapshot
    }
}

fn snap(dir: &Path, skip: &Path, out: &mut BTreeMap<PathBuf, String>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path == skip {
            continue;
        }
        let kind = std::fs::symlink_metadata(&path).unwrap().file_type();
        if kind.is_symlink() {
            let target = std::fs::read_link(&path).unwrap();
            out.insert(path, format!("link -> {}", target.display()));
        } else if kind.is_dir() {
            out.insert(path.clone(), "dir".into());
            snap(&path, skip, out);
        } else {
            out.insert(path.clone(), std::fs::read_to_string(&path).unwrap());
        }
    }
}
