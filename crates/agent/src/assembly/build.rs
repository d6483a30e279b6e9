//! [`AgentAssembly::build`]: the parts wired into a [`ConversationService`].

use std::sync::Arc;

use smallebot_application::ConversationService;
use smallebot_application::pipeline::{LeaseSettings, ServiceParts};
use smallebot_application::ports::{ChatModel, Hooks, Summarizer};
use smallebot_checkpoints::{Limits, PRUNE_EVERY, TurnCheckpoints};
use smallebot_core::repository::{HookRunRepository, Store};
use smallebot_core::rules::tool_search::unoffered_pins;
use smallebot_model_client::{NamedEndpoint, OpenAiChatModel, ServerWindows};

use super::home_tools::HomeTools;
use super::sub_agents::with_delegate;
use super::unconfigured::UnconfiguredModel;
use super::{Agent, AgentAssembly, AssemblyError, WarmUp};
use crate::history::{HistoryBuilder, task_guidance};
use crate::processes::{LocalProcesses, this_process};
use crate::skills::SkillCatalog;
use crate::subagents::SubAgentParts;
use crate::summarizer::{ModelSummarizer, SummarizerSettings};
use crate::tasks_plan::TaskPlanService;
use crate::tokenizer::Tokenizer;
use crate::tools::{
    GenerateSkill, HookRunner, READ_SKILL_DEFAULT_LIMIT, ReadSkill, SEARCH_TOOLS_DEFAULT_LIMIT,
    SearchTools, ToolRegistry, task_tools,
};

impl AgentAssembly {
    /// Wires everything.
    ///
    /// # Errors
    /// [`AssemblyError::NoStore`] without a store;
    /// [`AssemblyError::NoEndpoint`] when no chat model is configured or given; the
    /// tokenizer error when the named tokenizer is unknown; a blacklist rule of
    /// terminal.json that does not parse.
    pub fn build(self) -> Result<Agent, AssemblyError> {
        let store = self.store.ok_or(AssemblyError::NoStore)?;
        if self.chat.is_none() && !self.without_model {
            return Err(AssemblyError::NoEndpoint);
        }
        let hooks = chosen_hooks(self.hooks, self.home_hooks, &store);
        let tokenizer = match self.tokenizer {
            Some(tokenizer) => tokenizer,
            None => Arc::new(Tokenizer::new(&self.tokenizer_name)?),
        };
        match self.warm_up {
            WarmUp::Now => tokenizer.warm_up(),
            WarmUp::Background if !tokenizer.is_ready() => {
                let warm = Arc::clone(&tokenizer);
                std::thread::spawn(move || warm.warm_up());
            }
            WarmUp::Background | WarmUp::OnDemand => {}
        }
        let skill_dirs = self
            .skills
            .as_ref()
            .map(|folders| folders.clone().absolute().offered())
            .unwrap_or_default();
        let (mut tools, sandbox) = match &self.home_tools {
            Some(home_tools) => {
                home_tools.registry(&store, Arc::clone(&self.confirmer), &skill_dirs)?
            }
            None => (ToolRegistry::new(), None),
        };
        let mut plan = self.plan;
        if let Some(task_store) = &self.task_store {
            tools = task_tools(task_store)
                .into_iter()
                .fold(tools, ToolRegistry::with);
            if plan.is_none() {
                plan = Some(Arc::new(TaskPlanService::new(Arc::clone(task_store))));
            }
        }
        let mut history_settings = self.history;
        if history_settings.workspace.is_none() {
            // Attached files are saved where the model's tools work.
            history_settings.workspace = self.home_tools.as_ref().map(|h| h.workspace.clone());
        }
        let skills = self
            .skills
            .map(|folders| Arc::new(SkillCatalog::new(folders)));
        if let Some(catalog) = &skills {
            let limit = *history_settings
                .tool_result_max_length_by_tool
                .entry(ReadSkill::NAME.to_owned())
                .or_insert(READ_SKILL_DEFAULT_LIMIT);
            tools = tools
                .with(Arc::new(ReadSkill::new(Arc::clone(catalog), limit)))
                .with(Arc::new(GenerateSkill::new(Arc::clone(catalog))));
        }
        // Every call — the parent's, a sub-agent's, Delegate's — passes the one gate.
        // MCP tools wait for SearchTools when there are too many (the pipeline decides).
        let tools = tools.merge(self.tools);
        for pin in unoffered_pins(&self.pinned_tools, &tools.names()) {
            tracing::warn!(
                pin = format!("mcp__{pin}"),
                "agent.json mcp.pinnedTools names a tool no MCP server offers; the pin is ignored"
            );
        }
        let tools = tools
            .with_tool_search(self.pinned_tools)
            .with_gate(self.gate.gate(
                Arc::clone(&self.confirmer),
                hooks.clone(),
                Arc::clone(&store),
            ));
        history_settings
            .tool_result_max_length_by_tool
            .entry(SearchTools::NAME.to_owned())
            .or_insert(SEARCH_TOOLS_DEFAULT_LIMIT);
        if self.task_store.is_some() && history_settings.task_guidance.is_none() {
            history_settings.task_guidance = Some(task_guidance());
        }
        let compaction_window = self
            .compaction
            .as_ref()
            .map_or(history_settings.context_window, |(_, window)| *window);
        let summary_settings = SummarizerSettings {
            skill_path: self.skill_path,
            tool_result_max_length: history_settings.tool_result_max_length,
            tool_result_max_length_by_tool: history_settings.tool_result_max_length_by_tool.clone(),
            context_window: compaction_window,
            max_tokens: self.summary_max_tokens,
        };
        let windows = windows_of(&self.choices);
        let sub_windows = windows.clone();
        // Windows the servers report, learned by the client, counted by the builder.
        let server_windows = Arc::new(ServerWindows::default());
        let model: Arc<dyn ChatModel> = match self.chat {
            Some(chat) => Arc::new(
                OpenAiChatModel::new(
                    chat,
                    self.compaction.map(|(endpoint, _)| endpoint),
                    self.client,
                )
                .with_choices(self.choices)
                .with_server_windows(Arc::clone(&server_windows)),
            ),
            None => Arc::new(UnconfiguredModel),
        };
        // Every request recorded; checked against the budgets where prices are known.
        let model = self.metering.wrap(model, &store);
        let summarizer =
            ModelSummarizer::new(Arc::clone(&model), Arc::clone(&tokenizer), summary_settings);
        let sub_history = history_settings.clone();
        let mut history = HistoryBuilder::new(history_settings, Arc::clone(&tokenizer))
            .with_model_windows(windows)
            .with_server_windows(Arc::clone(&server_windows));
        if let Some(catalog) = &skills {
            history = history.with_skills(Arc::clone(catalog));
        }
        let history = Arc::new(history);
        let summarizer: Arc<dyn Summarizer> = Arc::new(summarizer);
        let lease = self
            .lease
            .unwrap_or_else(|| LeaseSettings::new(this_process(), Arc::new(LocalProcesses)));
        let events = self.events.unwrap_or_default();
        let turns = self.turns.unwrap_or_default();
        let tools = with_delegate(tools, self.sub_agents, || SubAgentParts {
            store: Arc::clone(&store),
            model: Arc::clone(&model),
            history: sub_history,
            tokenizer: Arc::clone(&tokenizer),
            windows: sub_windows,
            server_windows,
            skills: skills.clone(),
            plan: plan.clone(),
            summarizer: Arc::clone(&summarizer),
            pipeline: self.pipeline.clone(),
            lease: lease.clone(),
            events: Arc::clone(&events),
            turns: Arc::clone(&turns),
            hooks: hooks.clone(),
        });
        // Checkpoints of the workspace the home's tools work in (a sub-agent's calls
        // are compared around the parent's Delegate call: its service has none).
        let workspace = turn_checkpoints(self.checkpointed, self.home_tools.as_ref(), &store);
        let service = ConversationService::new(ServiceParts {
            store,
            model: Arc::clone(&model),
            assembler: Arc::clone(&history) as _,
            tools,
            plan,
            workspace,
            summarizer,
            settings: self.pipeline,
            lease,
            events: Some(events),
            turns: Some(turns),
            peers: self.peers,
            hooks,
        });
        Ok(Agent {
            service,
            model,
            history,
            tokenizer,
            user_name: self.user_name,
            sandbox,
            skills,
        })
    }
}

/// The context window of each model choice, by id.
fn windows_of(choices: &[NamedEndpoint]) -> Vec<(String, u64)> {
    choices
        .iter()
        .map(|c| (c.id.clone(), c.context_window))
        .collect()
}

/// The checkpoints of the workspace a service's tools work in: the one given beside
/// given tools (default limits and rules), else the home's with agent.json's settings;
/// none without either.
fn turn_checkpoints(
    given: Option<std::path::PathBuf>,
    home: Option<&HomeTools>,
    store: &Arc<dyn smallebot_core::repository::Store>,
) -> Option<Arc<dyn smallebot_application::ports::WorkspaceChanges>> {
    match (given, home) {
        (Some(dir), _) => Some(Arc::new(TurnCheckpoints::new(
            dir,
            Limits::default(),
            Arc::clone(store) as _,
        ))),
        (None, Some(home)) => Some(Arc::new(
            TurnCheckpoints::new(
                home.workspace.clone(),
                home.checkpoints.limits,
                Arc::clone(store) as _,
            )
            .with_ignore(home.checkpoints.ignore.clone())
            .with_retention(home.checkpoints.retention, PRUNE_EVERY),
        )),
        (None, None) => None,
    }
}

/// The hooks given, else the home's, recording their runs in `store`.
fn chosen_hooks(
    given: Option<Arc<dyn Hooks>>,
    home: Option<HookRunner>,
    store: &Arc<dyn Store>,
) -> Option<Arc<dyn Hooks>> {
    given.or_else(|| {
        home.map(|runner| {
            let recorder: Arc<dyn HookRunRepository> = Arc::clone(store) as _;
            Arc::new(runner.recording_to(recorder)) as Arc<dyn Hooks>
        })
    })
}
