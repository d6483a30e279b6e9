//! The built-in tools of a home's assembly: what they are made from, kept until `build`
//! so that the confirmer and the store can still be chosen, and the registry built from
//! it.

use std::path::PathBuf;
use std::sync::Arc;

use smallebot_application::ports::CommandConfirmer;
use smallebot_checkpoints::CheckpointSettings;
use smallebot_core::repository::Store;
use smallebot_sandbox::CommandSandbox;

use super::error::AssemblyError;
use super::home::Home;
use crate::config::{CommandEnvironment, TERMINAL_FILE, TerminalSettings};
use crate::tools::{
    ExecuteCommand, GetCurrentTime, ReadConversationData, SearchHistory, ToolRegistry, Workspace,
    workspace_tools,
};

/// What the built-in tools are made from (kept until `build`, so the confirmer and the
/// store can still be chosen).
pub(super) struct HomeTools {
    /// The home the settings were read from (named in errors).
    pub(super) home: Home,
    /// Where the file and shell tools work (`<home>/workspace` unless overridden).
    pub(super) workspace: PathBuf,
    /// terminal.json's settings.
    pub(super) terminal: TerminalSettings,
    /// The binary whose helper mode runs commands in the sandbox; none → unconfined.
    pub(super) sandbox_helper: Option<PathBuf>,
    /// agent.json's `commandEnvironment`: what commands get besides the base.
    pub(super) command_environment: CommandEnvironment,
    /// ReadConversationData's result limit: each page it returns fits in it.
    pub(super) conversation_data_page_chars: usize,
    /// agent.json's `checkpoints`: the limits and extra ignore rules of a capture.
    pub(super) checkpoints: CheckpointSettings,
}

impl HomeTools {
    /// `GetCurrentTime`, the six workspace tools, `ExecuteCommand` (in the sandbox when
    /// a helper is set, which is returned too; `skill_dirs` readable in it),
    /// `SearchHistory` and `ReadConversationData`.
    pub(super) fn registry(
        &self,
        store: &Arc<dyn Store>,
        confirmer: Arc<dyn CommandConfirmer>,
        skill_dirs: &[PathBuf],
    ) -> Result<(ToolRegistry, Option<Arc<CommandSandbox>>), AssemblyError> {
        let workspace = Workspace::new(self.workspace.clone());
        let mut shell = ExecuteCommand::new(self.terminal.clone(), workspace, confirmer)
            .map_err(|source| AssemblyError::BlacklistRule {
                file: self.home.root().join(TERMINAL_FILE),
                source,
            })?
            .with_environment(self.command_environment.clone());
        let sandbox = match &self.sandbox_helper {
            Some(helper) => {
                // Skills' scripts run from their folders: readable, never writable.
                let mut settings = self.terminal.sandbox.clone();
                settings.readable_paths.extend(skill_dirs.iter().cloned());
                let sandbox = CommandSandbox::new(
                    settings,
                    helper.clone(),
                    &std::path::absolute(self.home.root())
                        .unwrap_or_else(|_| self.home.root().to_path_buf()),
                )
                .map_err(|source| AssemblyError::Sandbox {
                    file: self.home.root().join(TERMINAL_FILE),
                    source,
                })?;
                let sandbox = Arc::new(sandbox);
                shell = shell.with_sandbox(Arc::clone(&sandbox));
                Some(sandbox)
            }
            None => None,
        };
        let registry = ToolRegistry::new()
            .with(Arc::new(GetCurrentTime))
            .with(Arc::new(shell))
            .with(Arc::new(SearchHistory::new(Arc::clone(store))))
            .with(Arc::new(ReadConversationData::new(
                Arc::clone(store),
                self.conversation_data_page_chars,
            )));
        let registry = workspace_tools(self.workspace.clone())
            .into_iter()
            .fold(registry, ToolRegistry::with);
        Ok((registry, sandbox))
    }
}
