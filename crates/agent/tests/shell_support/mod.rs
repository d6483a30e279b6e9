//! Shared helpers of the `shell_*` tests: an `ExecuteCommand` in a temporary workspace,
//! called through the registry, and a look at which processes of a group are alive.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use smallebot_agent::config::{TerminalSettings, with_terminal_rules};
use smallebot_agent::tools::{ExecuteCommand, PermissionGate, ToolRegistry, Workspace};
use smallebot_application::ports::{
    CommandConfirmer, ConfirmationRequest, DenyAll, ToolContext, ToolExecutor, ToolInvocation,
    ToolOutcome,
};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::permission::PermissionRules;
use tokio_util::sync::CancellationToken;

/// A confirmer that records every question and gives a fixed answer.
#[derive(Default)]
pub struct Recording {
    pub answer: bool,
    pub asked: Mutex<Vec<String>>,
}

impl Recording {
    pub fn answering(answer: bool) -> Arc<Self> {
        Arc::new(Self {
            answer,
            asked: Mutex::new(Vec::new()),
        })
    }

    pub fn asked(&self) -> Vec<String> {
        self.asked.lock().unwrap().clone()
    }
}

#[async_trait]
impl CommandConfirmer for Recording {
    async fn confirm(&self, request: &ConfirmationRequest<'_>, _timeout: Duration) -> bool {
        self.asked.lock().unwrap().push(request.command.to_owned());
        self.answer
    }
}

/// A shell tool in a fresh workspace.
pub struct Shell {
    pub dir: tempfile::TempDir,
    pub registry: ToolRegistry,
}

impl Shell {
    pub fn new(settings: TerminalSettings, confirmer: Arc<dyn CommandConfirmer>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let tool = ExecuteCommand::new(
            settings.clone(),
            Workspace::new(dir.path().join("workspace")),
            Arc::clone(&confirmer),
        )
        .unwrap();
        // requireCommandConfirmation and commandWhitelist are permission rules, asked
        // about by the registry's gate.
        let rules = with_terminal_rules(
            PermissionRules::default(),
            &settings,
            Path::new("terminal.json"),
        )
        .unwrap();
        let gate =
            PermissionGate::new(rules, confirmer).with_timeout(settings.confirmation_timeout);
        Self {
            dir,
            registry: ToolRegistry::new()
                .with(Arc::new(tool))
                .with_gate(Arc::new(gate)),
        }
    }

    /// Default settings, no confirmation.
    pub fn default_settings() -> Self {
        Self::new(TerminalSettings::default(), Arc::new(DenyAll))
    }

    /// Default settings with this command timeout.
    pub fn with_timeout(timeout: Duration) -> Self {
        let settings = TerminalSettings {
            command_timeout: timeout,
            ..TerminalSettings::default()
        };
        Self::new(settings, Arc::new(DenyAll))
    }

    /// The workspace root (created by the first call).
    pub fn workspace(&self) -> PathBuf {
        self.dir.path().join("workspace")
    }

    pub async fn call(&self, arguments: &str) -> ToolOutcome {
        self.call_with(arguments, &context(CancellationToken::new()))
            .await
    }

    pub async fn call_with(&self, arguments: &str, context: &ToolContext) -> ToolOutcome {
        let invocation = ToolInvocation {
            call_id: "call_1".into(),
            name: "ExecuteCommand".into(),
            arguments: arguments.into(),
        };
        self.registry.execute(&invocation, context).await
    }

    /// Runs `command` (JSON-escaped here).
    pub async fn run(&self, command: &str) -> ToolOutcome {
        self.call(&serde_json::json!({ "command": command }).to_string())
            .await
    }
}

pub fn context(cancel: CancellationToken) -> ToolContext {
    ToolContext::in_turn(ConversationId::new(), TurnId::new(), cancel)
}

/// The `pgid=N` the test commands print (`echo pgid=$$`).
pub fn printed_group(output: &str) -> i32 {
    let start = output.find("pgid=").expect(output) + 5;
    output[start..]
        .chars()
        .take_while(char::is_ascii_digit)
        .collect::<String>()
        .parse()
        .unwrap()
}

/// Pids of live (not zombie) processes in process group `group`, from /proc.
pub fn live_members(group: i32) -> Vec<i32> {
    let mut members = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<i32>() else {
            continue;
        };
        let Ok(stat) = std::fs::read_to_string(entry.path().join("stat")) else {
            continue;
        };
        // "pid (comm) state ppid pgrp ..." — comm may contain spaces and parentheses.
        let Some(after) = stat.rfind(')').map(|at| &stat[at + 1..]) else {
            continue;
        };
        let fields: Vec<&str> = after.split_whitespace().collect();
        let (state, pgrp) = (fields[0], fields[2].parse::<i32>().unwrap());
        if pgrp == group && state != "Z" && state != "X" {
            members.push(pid);
        }
    }
    members
}

/// Waits up to two seconds for group `group` to have no live process.
pub async fn assert_group_gone(group: i32) {
    let deadline = Instant::now() + Duration::from_secs(2);
    loop {
        let members = live_members(group);
        if members.is_empty() {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "processes of group {group} still alive: {members:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// Whether `path` exists (for commands that must not have run).
pub fn exists(path: &Path) -> bool {
    path.symlink_metadata().is_ok()
}
