//! `ExecuteCommand(command, workingDirectory?)`.

use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{
    CommandConfirmer, ConfirmationRequest, ToolContext, ToolOutcome, ToolTraits,
};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::rules::child_env::{ChildEnvRule, child_environment};
use smallebot_shell::{CommandPolicy, CommandVerdict, PolicyError};

use super::process::{Ending, Finished, plain_shell, run_shell};
use crate::config::{CommandEnvironment, TerminalSettings};
use crate::tools::duration_text::seconds;
use crate::tools::{AskFirst, CallView, TypedTool, Workspace, WorkspaceError};
use smallebot_core::rules::permission::CallSubject;
use smallebot_sandbox::{
    CommandSandbox, Confined, FAILURE_CODE, FAILURE_PREFIX, Prepared, SandboxError,
};
use tokio::process::Command;

/// The tool's name.
const NAME: &str = "ExecuteCommand";

/// Runs a shell command in the workspace (docs/design.md §8).
///
/// In order: the blacklist (a match → status `Denied`, naming the rule), then the
/// permission rules on the command's words and the person's confirmation where they
/// ask (the registry's [`PermissionGate`](crate::tools::PermissionGate), where
/// `commandWhitelist` and `requireCommandConfirmation` are rules), the working
/// directory (must resolve inside the workspace), then `/bin/sh -c` with the time limit — through the [`CommandSandbox`]
/// when one is set ([`ExecuteCommand::with_sandbox`]): limits and Landlock rules, the
/// status line then naming the sandbox. Where the kernel has no Landlock although a
/// mode is configured, every command asks the person before running unconfined.
///
/// Result text: the output (stdout and stderr interleaved, capped keeping head and
/// tail), then one status line, `[exit code: N]`. Exit code 0 is status `Ok`; any other
/// exit, or a signal, is status `Error` (the files it names are then not recorded on the
/// task), the model still reading the code and the error lines. A timeout is status
/// `Error` with what was captured; a cancelled turn is `Cancelled`.
///
/// A command's environment is an allow-list, sandboxed or not: the base variables of
/// [`smallebot_core::rules::child_env`] with `HOME` set to the workspace (the sandbox
/// then points `HOME` and `TMPDIR` at its private temporary directory), plus what
/// [`ExecuteCommand::with_environment`] names; nothing else of the host's.
pub struct ExecuteCommand {
    policy: CommandPolicy,
    settings: TerminalSettings,
    workspace: Workspace,
    confirmer: Arc<dyn CommandConfirmer>,
    sandbox: Option<Arc<CommandSandbox>>,
    environment: CommandEnvironment,
}

impl ExecuteCommand {
    /// Asks the person before a command runs without the sandbox; `None` when they
    /// allowed it, else what the model is told (declined, no answer, or the turn
    /// cancelled).
    async fn ask_unconfined(&self, command: &str, context: &ToolContext) -> Option<ToolOutcome> {
        let request = ConfirmationRequest::new(command, context.conversation_id, context.turn_id)
            .unconfined();
        let allowed = tokio::select! {
            allowed = self.confirmer.confirm(&request, self.settings.confirmation_timeout) => allowed,
            () = context.cancel.cancelled() => {
                return Some(cancelled("while waiting for the user's confirmation"));
            }
        };
        (!allowed).then(|| ToolOutcome {
            content: "Error: this machine's kernel has no Landlock, so the command would \
                      run without the sandbox, and the user did not allow that; it was \
                      not run. Ask the user how to proceed."
                .to_owned(),
            status: ToolCallStatus::Denied,
        })
    }

    /// The refusal of `command`, if any: empty, or matching the blacklist (status
    /// `Denied`, naming the rule).
    fn refused(&self, command: &str) -> Option<ToolOutcome> {
        if command.trim().is_empty() {
            return Some(ToolOutcome::error(format!(
                "Error: {NAME}: parameter 'command' is empty; give the command line to run"
            )));
        }
        match self.policy.check(command) {
            CommandVerdict::Allowed { .. } => None,
            denied @ CommandVerdict::Denied { .. } => Some(ToolOutcome {
                content: format!("Error: {denied}"),
                status: ToolCallStatus::Denied,
            }),
        }
    }

    /// Whether commands run without the sandbox only with the person's consent (the
    /// kernel has no Landlock although a sandbox mode is configured).
    fn needs_consent(&self) -> bool {
        self.sandbox.as_ref().is_some_and(|s| s.needs_consent())
    }

    /// The shell that runs `command` in `dir`: plain, or through the sandbox's helper
    /// (with what it prepared, removed after the command, and its description for the
    /// report).
    fn launch(
        &self,
        command: &str,
        dir: &Path,
        unconfined: bool,
    ) -> Result<(Command, Option<Prepared>, Option<String>), SandboxError> {
        let root = std::path::absolute(self.workspace.root())
            .unwrap_or_else(|_| self.workspace.root().to_path_buf());
        let environment = self.environment(&root);
        let Some(sandbox) = &self.sandbox else {
            return Ok((plain_shell(command, dir, environment), None, None));
        };
        let how = if unconfined {
            Confined::UnconfinedByConsent
        } else {
            Confined::Sandboxed
        };
        let (shell, prepared) = sandbox.prepare(command, dir, &root, how, environment)?;
        let described = if unconfined {
            "none (no Landlock on this machine; run unconfined with the user's consent)".to_owned()
        } else {
            sandbox.settings().describe()
        };
        Ok((shell, Some(prepared), Some(described)))
    }

    /// The name the model calls this tool by (front ends show its calls as commands).
    pub const NAME: &'static str = NAME;

    /// The tool with `settings` from `terminal.json`, confined to `workspace`, asking
    /// `confirmer` before a command runs without the sandbox (the other questions are
    /// the registry's [`PermissionGate`](crate::tools::PermissionGate)'s).
    ///
    /// # Errors
    /// A blacklist rule that does not parse.
    pub fn new(
        settings: TerminalSettings,
        workspace: Workspace,
        confirmer: Arc<dyn CommandConfirmer>,
    ) -> Result<Self, PolicyError> {
        Ok(Self {
            policy: settings.policy()?,
            settings,
            workspace,
            confirmer,
            sandbox: None,
            environment: CommandEnvironment::default(),
        })
    }

    /// Gives every command these variables besides the base (agent.json's
    /// `commandEnvironment`).
    #[must_use]
    pub fn with_environment(mut self, environment: CommandEnvironment) -> Self {
        self.environment = environment;
        self
    }

    /// The whole environment of a command run in the workspace `root`.
    fn environment(&self, root: &Path) -> BTreeMap<OsString, OsString> {
        child_environment(
            std::env::vars_os(),
            &ChildEnvRule {
                pass: &self.environment.pass,
                fixed: &[("HOME", root.as_os_str())],
                set: &self.environment.set,
            },
        )
    }

    /// Runs every command through `sandbox` (limits, Landlock rules); without one,
    /// commands run unconfined and unlimited.
    #[must_use]
    pub fn with_sandbox(mut self, sandbox: Arc<CommandSandbox>) -> Self {
        self.sandbox = Some(sandbox);
        self
    }

    /// The directory to run in: the workspace root, or `workingDirectory` inside it.
    async fn directory(&self, input: Option<&str>) -> Result<PathBuf, ToolOutcome> {
        let workspace = self.workspace.clone();
        let input = input.unwrap_or("").to_owned();
        let resolved = tokio::task::spawn_blocking(move || {
            let resolved = workspace.resolve_existing(&input)?;
            Ok::<_, WorkspaceError>((resolved.path(), resolved.display().to_owned()))
        })
        .await;
        match resolved {
            Ok(Ok((path, _))) if path.is_dir() => Ok(path),
            Ok(Ok((_, display))) => Err(ToolOutcome::error(format!(
                "Error: workingDirectory '{display}' is a file, not a directory; give a \
                 directory inside the workspace, or leave it out to use the workspace root"
            ))),
            Ok(Err(error)) => Err(ToolOutcome {
                content: format!("Error: workingDirectory: {error}"),
                status: if error.is_refusal() {
                    ToolCallStatus::Denied
                } else {
                    ToolCallStatus::Error
                },
            }),
            Err(error) => Err(ToolOutcome::error(format!(
                "Error: could not resolve workingDirectory ({error}); try again"
            ))),
        }
    }
}

/// The outcome of a cancelled call.
fn cancelled(detail: &str) -> ToolOutcome {
    ToolOutcome {
        content: format!("[cancelled {detail}]"),
        status: ToolCallStatus::Cancelled,
    }
}

/// The result text and status of a finished run; `sandbox` (when one ran it) goes on
/// the status line.
fn report(finished: Finished, sandbox: Option<&str>) -> ToolOutcome {
    if let (Ending::Exited(status), Some(_)) = (finished.ending, sandbox)
        && status.code() == Some(FAILURE_CODE)
        && let Some(reason) = finished.output.strip_prefix(FAILURE_PREFIX)
    {
        return ToolOutcome::error(format!(
            "Error: the sandbox could not be set up: {}. Tell the user; retrying will \
             not help.",
            reason.trim_end()
        ));
    }
    let (line, status) = match finished.ending {
        // A command that exits non-zero failed: status `Error` (so the files it names
        // are not recorded on the task), with its exit code in the text.
        Ending::Exited(status) if status.success() => (exit_line(status), ToolCallStatus::Ok),
        Ending::Exited(status) => (exit_line(status), ToolCallStatus::Error),
        Ending::TimedOut(after) => (
            format!(
                "[timed out after {}; the process group was killed]",
                seconds(after)
            ),
            ToolCallStatus::Error,
        ),
        Ending::Cancelled => (
            "[cancelled; the process group was killed]".to_owned(),
            ToolCallStatus::Cancelled,
        ),
    };
    let mut content = finished.output;
    if content.is_empty() {
        content.push_str("(no output)");
    }
    if !content.ends_with('\n') {
        content.push('\n');
    }
    // The status line is one bracket: `[exit code: 0; sandbox: read-only, …]`.
    match sandbox {
        Some(sandbox) => {
            let open = line.strip_suffix(']').unwrap_or(&line);
            content.push_str(&format!("{open}; sandbox: {sandbox}]"));
        }
        None => content.push_str(&line),
    }
    ToolOutcome { content, status }
}

/// `[exit code: N]`, or the signal that ended the shell.
fn exit_line(status: std::process::ExitStatus) -> String {
    if let Some(code) = status.code() {
        return format!("[exit code: {code}]");
    }
    #[cfg(unix)]
    {
        use std::os::unix::process::ExitStatusExt;
        if let Some(signal) = status.signal() {
            return format!("[killed by signal {signal}]");
        }
    }
    format!("[{status}]")
}

/// `ExecuteCommand`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct ExecuteCommandArgs {
    /// The command line, e.g. `ls -la` or `cargo test 2>&1 | tail -n 50`.
    pub command: String,
    /// Directory to run in, relative to the workspace root (default: the root).
    #[serde(default)]
    pub working_directory: Option<String>,
}

#[async_trait]
impl TypedTool for ExecuteCommand {
    type Args = ExecuteCommandArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::MUTATING
    }

    /// Output redirections, `tee`, `touch`, `cp`/`mv` targets, `mkdir`, files opened for
    /// writing by inline Python, … of the command line, run in `workingDirectory`.
    fn written_paths(&self, args: &ExecuteCommandArgs) -> Vec<String> {
        let root = self.workspace.absolute_root();
        let directory = args
            .working_directory
            .as_deref()
            .and_then(|dir| smallebot_shell::resolve_written_path(&root, dir));
        smallebot_shell::written_files(&args.command, directory.as_deref().unwrap_or(&root))
    }

    /// The blacklist refuses first; the rules then see the command's words. Where
    /// commands would run without the sandbox, the tool asks the person itself; with
    /// `requireCommandConfirmation`, the person is asked unless a rule allows it.
    fn permission(&self, args: &ExecuteCommandArgs) -> Result<CallView, ToolOutcome> {
        if let Some(refused) = self.refused(&args.command) {
            return Err(refused);
        }
        let view = CallView::new(CallSubject::command(NAME, &args.command)).shown(&args.command);
        Ok(if self.needs_consent() {
            view.ask_first(AskFirst::Itself)
        } else if self.settings.require_command_confirmation {
            // Also a rule of an assembly's gate (`with_terminal_rules`); said here too,
            // so that a registry built without those rules still asks.
            view.ask_first(AskFirst::UnlessARuleAllows)
        } else {
            view
        })
    }

    fn description(&self) -> String {
        format!(
            "Run a shell command line with /bin/sh -c in the workspace and return its \
             output (stdout and stderr together, at most {} characters, keeping the \
             beginning and the end) and exit code. Time limit {}; background \
             processes are stopped when the command ends; no standard input. Some \
             commands are refused (see the terminal rules).",
            self.settings.max_output_chars,
            seconds(self.settings.command_timeout)
        )
    }

    async fn run(&self, args: ExecuteCommandArgs, context: &ToolContext) -> ToolOutcome {
        let ExecuteCommandArgs {
            command,
            working_directory,
        } = args;
        let command = command.as_str();
        let directory = working_directory.as_deref();
        // Checked by the gate first; again here, so no way of calling the tool skips it.
        if let Some(refused) = self.refused(command) {
            return refused;
        }
        let dir = match self.directory(directory).await {
            Ok(dir) => dir,
            Err(outcome) => return outcome,
        };
        let unconfined = self.needs_consent();
        if unconfined && let Some(refused) = self.ask_unconfined(command, context).await {
            return refused;
        }
        if context.cancel.is_cancelled() {
            return cancelled("before the command started");
        }
        let (shell, prepared, described) = match self.launch(command, &dir, unconfined) {
            Ok(launch) => launch,
            Err(error) => return ToolOutcome::error(format!("Error: {error}")),
        };
        let ran = run_shell(
            shell,
            self.settings.command_timeout,
            self.settings.max_output_chars,
            &context.cancel,
        )
        .await;
        // Removes the private temporary directory and the control group.
        if let Some(prepared) = prepared {
            let _ = tokio::task::spawn_blocking(move || drop(prepared)).await;
        }
        match ran {
            Ok(finished) => report(finished, described.as_deref()),
            Err(error) => ToolOutcome::error(format!(
                "Error: could not run /bin/sh ({error}); check that /bin/sh exists and the \
                 workspace directory is accessible"
            )),
        }
    }
}
