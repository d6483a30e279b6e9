//! [`SubAgentParts`]: what a sub-agent's service is built from, and the building.

use std::sync::Arc;

use smallebot_application::events::EventBus;
use smallebot_application::pipeline::{
    ActiveTurns, ConversationService, LeaseSettings, PipelineSettings, ServiceParts,
};
use smallebot_application::ports::{ChatModel, Summarizer, TaskPlan, ToolExecutor};
use smallebot_core::agents::AgentDefinition;
use smallebot_core::repository::Store;
use smallebot_model_client::ServerWindows;

use super::narrowed::NarrowedTools;
use crate::history::{HistoryBuilder, HistorySettings};
use crate::skills::SkillCatalog;
use crate::tokenizer::Tokenizer;

/// What a sub-agent's own service is built from: the parent's parts (same store,
/// model client, event bus and running turns, so cancelling and shutting down reach
/// sub-agents too).
pub struct SubAgentParts {
    /// The store every conversation lives in.
    pub store: Arc<dyn Store>,
    /// The model client (its choices cover every models.json id).
    pub model: Arc<dyn ChatModel>,
    /// The parent's history settings (the system prompt is replaced by the agent's).
    pub history: HistorySettings,
    /// The tokenizer.
    pub tokenizer: Arc<Tokenizer>,
    /// The context windows by model id.
    pub windows: Vec<(String, u64)>,
    /// The windows the servers reported.
    pub server_windows: Arc<ServerWindows>,
    /// The skills offered (shown in the sub-agent's prompt as in the parent's).
    pub skills: Option<Arc<SkillCatalog>>,
    /// The task list service.
    pub plan: Option<Arc<dyn TaskPlan>>,
    /// The summarizer.
    pub summarizer: Arc<dyn Summarizer>,
    /// The parent's pipeline settings (`maxToolSteps` narrowed by the definition).
    pub pipeline: PipelineSettings,
    /// Who owns the turns.
    pub lease: LeaseSettings,
    /// The parent's event bus.
    pub events: Arc<EventBus>,
    /// The parent's running turns.
    pub turns: Arc<ActiveTurns>,
    /// The home's hooks (a sub-agent's turn ends with `SubagentStop`).
    pub hooks: Option<Arc<dyn smallebot_application::ports::Hooks>>,
}

impl SubAgentParts {
    /// A new service for sub-agents of `definition`, over the parent's `tools` without
    /// those named `never`.
    pub(super) fn build_service(
        &self,
        definition: &AgentDefinition,
        tools: Arc<dyn ToolExecutor>,
        never: &[&'static str],
    ) -> Arc<ConversationService> {
        let mut history_settings = self.history.clone();
        history_settings
            .base_instructions
            .clone_from(&definition.prompt);
        let mut history = HistoryBuilder::new(history_settings, Arc::clone(&self.tokenizer))
            .with_model_windows(self.windows.clone())
            .with_server_windows(Arc::clone(&self.server_windows));
        if let Some(skills) = &self.skills {
            history = history.with_skills(Arc::clone(skills));
        }
        let mut pipeline = self.pipeline.clone();
        if let Some(steps) = definition.max_tool_steps {
            pipeline.max_tool_steps = pipeline.max_tool_steps.min(steps as usize);
        }
        pipeline.notices.clear();
        Arc::new(ConversationService::new(ServiceParts {
            store: Arc::clone(&self.store),
            model: Arc::clone(&self.model),
            assembler: Arc::new(history),
            tools: Arc::new(NarrowedTools::new(tools, definition, never)),
            plan: self.plan.clone(),
            // Its calls' changes are the parent's Delegate call's, compared there.
            workspace: None,
            summarizer: Arc::clone(&self.summarizer),
            settings: pipeline,
            lease: self.lease.clone(),
            events: Some(Arc::clone(&self.events)),
            turns: Some(Arc::clone(&self.turns)),
            peers: None,
            hooks: self.hooks.clone(),
        }))
    }
}
