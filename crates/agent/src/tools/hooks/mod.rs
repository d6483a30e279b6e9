//! [`HookRunner`]: the hooks of `<home>/hooks.json` run as the application's
//! [`Hooks`] port — by the gate around every tool call (`PreToolUse`, `PostToolUse`)
//! and by the pipeline at a turn's other points.
//!
//! Each hook is `/bin/sh -c COMMAND` on the host (hooks are the owner's own programs:
//! not sandboxed), in the home's workspace (a web user's folder in multi-user
//! `serve`), with the JSON input on standard input and
//! the command environment (the allow-list of `commandEnvironment`, `HOME` the host's)
//! plus `SMALLEBOT_HOME`, `SMALLEBOT_WORKSPACE`, `SMALLEBOT_CONVERSATION_ID`,
//! `SMALLEBOT_TURN_ID` and `SMALLEBOT_EVENT`. The hooks of one event run in parallel,
//! each within its timeout; a hook that times out, or whose turn is cancelled, is
//! killed with its process group.

mod process;

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use smallebot_application::ports::Hooks;
use smallebot_core::entities::HookRun;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::HookRunRepository;
use smallebot_core::rules::child_env::{ChildEnvRule, child_environment};
use smallebot_core::rules::hook::{HookEvent, HookExit, HookInput, HookResult, combine, interpret};
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

use crate::config::{CommandEnvironment, HookCommand, HooksConfig};
use process::{HookProcess, Launch, run_hook};

/// The hooks of a home, run on the host.
pub struct HookRunner {
    config: HooksConfig,
    home: PathBuf,
    workspace: PathBuf,
    environment: BTreeMap<OsString, OsString>,
    recorder: Option<Arc<dyn HookRunRepository>>,
}

impl HookRunner {
    /// The hooks of `config` for the home `home`, run in `workspace` with the host's
    /// variables `commandEnvironment` lets through.
    #[must_use]
    pub fn new(
        config: HooksConfig,
        home: PathBuf,
        workspace: PathBuf,
        command_environment: &CommandEnvironment,
    ) -> Self {
        let environment = child_environment(
            std::env::vars_os(),
            &ChildEnvRule {
                pass: &command_environment.pass,
                fixed: &[],
                set: &command_environment.set,
            },
        );
        Self {
            config,
            home,
            workspace,
            environment,
            recorder: None,
        }
    }

    /// The same runner recording each run with `recorder` (on its conversation and
    /// turn; runs outside a conversation are only logged).
    #[must_use]
    pub fn recording_to(mut self, recorder: Arc<dyn HookRunRepository>) -> Self {
        self.recorder = Some(recorder);
        self
    }

    /// The same hooks run in `workspace` instead (a web user's own folder): their
    /// directory, their input's `cwd` and `SMALLEBOT_WORKSPACE`.
    #[must_use]
    pub fn in_workspace(mut self, workspace: PathBuf) -> Self {
        self.workspace = workspace;
        self
    }

    /// Whether no hook is configured at all.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.config.is_empty()
    }

    /// The environment of a hook of `event` for `input`.
    fn environment_of(&self, event: HookEvent, input: &HookInput) -> BTreeMap<OsString, OsString> {
        let mut environment = self.environment.clone();
        let mut set = |name: &str, value: OsString| {
            environment.insert(OsString::from(name), value);
        };
        set("SMALLEBOT_HOME", self.home.clone().into_os_string());
        set(
            "SMALLEBOT_WORKSPACE",
            self.workspace.clone().into_os_string(),
        );
        set("SMALLEBOT_EVENT", OsString::from(event.name()));
        if let Some(id) = &input.conversation_id {
            set("SMALLEBOT_CONVERSATION_ID", OsString::from(id));
        }
        if let Some(id) = &input.turn_id {
            set("SMALLEBOT_TURN_ID", OsString::from(id));
        }
        environment
    }

    /// Runs `commands` for `event` in parallel; their runs in the commands' order.
    async fn run_all(
        &self,
        event: HookEvent,
        commands: Vec<HookCommand>,
        input: &HookInput,
        cancel: &CancellationToken,
    ) -> Vec<(HookCommand, HookProcess)> {
        let bytes: Arc<[u8]> = serde_json::to_vec(input).unwrap_or_default().into();
        let environment = Arc::new(self.environment_of(event, input));
        let dir = if self.workspace.is_dir() {
            self.workspace.clone()
        } else {
            self.home.clone()
        };
        let mut running = JoinSet::new();
        for (index, command) in commands.into_iter().enumerate() {
            let (bytes, environment, dir) =
                (Arc::clone(&bytes), Arc::clone(&environment), dir.clone());
            let cancel = cancel.clone();
            running.spawn(async move {
                let launch = Launch {
                    command: &command.command,
                    dir: &dir,
                    environment: &environment,
                    input: &bytes,
                    timeout: command.timeout,
                };
                let ran = run_hook(&launch, &cancel).await;
                (index, command, ran)
            });
        }
        let mut runs = Vec::new();
        while let Some(joined) = running.join_next().await {
            if let Ok(run) = joined {
                runs.push(run);
            }
        }
        runs.sort_by_key(|(index, _, _)| *index);
        runs.into_iter()
            .map(|(_, command, ran)| (command, ran))
            .collect()
    }
}

#[async_trait]
impl Hooks for HookRunner {
    fn wants(&self, event: HookEvent, tool: Option<&str>) -> bool {
        !self.config.commands(event, tool).is_empty()
    }

    async fn run(
        &self,
        event: HookEvent,
        mut input: HookInput,
        cancel: &CancellationToken,
    ) -> HookResult {
        let commands: Vec<HookCommand> = self
            .config
            .commands(event, input.tool_name.as_deref())
            .into_iter()
            .cloned()
            .collect();
        if commands.is_empty() {
            return HookResult::default();
        }
        input.cwd = self.workspace.display().to_string();
        let runs = self.run_all(event, commands, &input, cancel).await;
        let results = runs
            .into_iter()
            .map(|(command, ran)| {
                let mut result =
                    interpret(event, &command.command, ran.exit, &ran.stdout, &ran.stderr);
                let run = record(event, &input, &command, &ran, &result);
                log_run(event, &command.command, run.as_ref());
                if let Some(run) = run {
                    if let Some(recorder) = &self.recorder {
                        recorder.record_hook_run(run.clone());
                    }
                    result.runs.push(run);
                }
                result
            })
            .collect();
        combine(results)
    }
}

/// The record of one run of `command` for `input` (`None` outside a conversation).
fn record(
    event: HookEvent,
    input: &HookInput,
    command: &HookCommand,
    ran: &HookProcess,
    result: &HookResult,
) -> Option<HookRun> {
    let decision = match (result.decision, &result.warning) {
        (Some(decision), _) => decision.name(),
        (None, Some(_)) => "warning",
        (None, None) => "",
    };
    let conversation_id: ConversationId = input.conversation_id.as_deref()?.parse().ok()?;
    Some(HookRun {
        conversation_id,
        turn_id: input
            .turn_id
            .as_deref()
            .and_then(|id| id.parse::<TurnId>().ok()),
        event: event.name().to_owned(),
        tool_name: input.tool_name.clone(),
        call_id: input.tool_use_id.clone(),
        command: command.command.clone(),
        exit_code: match ran.exit {
            HookExit::Code(code) => Some(code),
            _ => None,
        },
        duration_ms: u64::try_from(ran.duration.as_millis()).unwrap_or(u64::MAX),
        decision: decision.to_owned(),
        at: chrono::Utc::now(),
    })
}

/// Logs one run of `command`.
fn log_run(event: HookEvent, command: &str, run: Option<&HookRun>) {
    tracing::info!(
        event = event.name(),
        command = %command,
        exit = ?run.and_then(|r| r.exit_code),
        duration_ms = run.map_or(0, |r| r.duration_ms),
        decision = %run.map_or("", |r| r.decision.as_str()),
        "hook ran"
    );
}

#[cfg(test)]
mod tests;
