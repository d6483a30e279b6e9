//! [`SubAgentRunner`]: runs one delegated task as a conversation of its own.

use std::sync::{Arc, OnceLock, Weak};

use smallebot_application::events::SubAgentOutcome;
use smallebot_application::pipeline::{ConversationService, SendOptions};
use smallebot_application::ports::{CallRequester, ToolContext, ToolExecutor, ToolOutcome};
use smallebot_core::agents::{AgentDefinition, AgentModel, GENERAL_AGENT};
use smallebot_core::entities::{Conversation, SubAgentLink, ToolCallStatus, TurnStatus};
use smallebot_core::ids::ConversationId;
use tokio::sync::Semaphore;
use tracing::Instrument;

use super::parts::SubAgentParts;
use super::progress::Progress;
use super::services::AgentServices;
use crate::agents::{AgentFileCache, AgentFolders, AgentSet};

/// One `Delegate` call's task.
#[derive(Debug, Clone, Copy)]
pub struct DelegatedTask<'a> {
    /// The agent (`None`: `general`, or a resumed conversation's).
    pub agent: Option<&'a str>,
    /// The task, self-contained.
    pub prompt: &'a str,
    /// A few words for the person (the new conversation's title).
    pub description: &'a str,
    /// The id of an earlier sub-agent conversation of the same parent to continue.
    pub resume: Option<&'a str>,
}

/// Runs sub-agents: reads the agent definitions when asked, builds the agent's service
/// over the parent's narrowed tools, and waits for a place among `maxParallelAgents`.
pub struct SubAgentRunner {
    parts: SubAgentParts,
    folders: AgentFolders,
    /// The agent files as last read (each read again once it changes).
    files: AgentFileCache,
    /// The service each agent ran in last, reused while its definition is unchanged.
    services: AgentServices<ConversationService>,
    places: Semaphore,
    /// Tools of the parent a sub-agent never gets (`Delegate`).
    never: Vec<&'static str>,
    /// The parent's tools (set once they are built; weak: they hold this runner).
    tools: OnceLock<Weak<dyn ToolExecutor>>,
}

/// The most characters of a delegated task kept in its conversation's title.
const TITLE_MAX_CHARS: usize = 80;

impl SubAgentRunner {
    /// A runner over `parts`, reading agent definitions from `folders`, running at most
    /// `max_parallel` sub-agents at once, each without the parent's tools named `never`.
    #[must_use]
    pub fn new(
        parts: SubAgentParts,
        folders: AgentFolders,
        max_parallel: usize,
        never: Vec<&'static str>,
    ) -> Self {
        Self {
            parts,
            folders,
            files: AgentFileCache::new(),
            services: AgentServices::default(),
            never,
            places: Semaphore::new(max_parallel.max(1)),
            tools: OnceLock::new(),
        }
    }

    /// Gives the runner the parent's tools (once; later calls change nothing).
    pub fn set_tools(&self, tools: &Arc<dyn ToolExecutor>) {
        let _ = self.tools.set(Arc::downgrade(tools));
    }

    /// The agent definitions now (files unchanged since the last look are not read
    /// again).
    #[must_use]
    pub fn agents(&self) -> AgentSet {
        AgentSet::read_cached(&self.folders, &self.files)
    }

    /// Runs `task` for the call `context` makes; the sub-agent's answer, or what kept
    /// it from one, as the tool's outcome.
    pub async fn run(&self, task: &DelegatedTask<'_>, context: &ToolContext) -> ToolOutcome {
        let Some(parent_id) = context.conversation_id else {
            return ToolOutcome::error("Error: Delegate runs only inside a conversation.");
        };
        let resumed = match task.resume {
            Some(id) => match self.resumable(id, parent_id).await {
                Ok(conversation) => Some(conversation),
                Err(error) => return ToolOutcome::error(format!("Error: {error}")),
            },
            None => None,
        };
        let ran = resumed
            .as_ref()
            .and_then(|c| c.parent.as_ref())
            .map(|l| l.agent_name.clone());
        let name = match (ran, task.agent) {
            (Some(ran), Some(asked)) if ran != asked => {
                return ToolOutcome::error(format!(
                    "Error: that conversation is the agent '{ran}''s; leave 'agent' out to \
                     resume it"
                ));
            }
            (Some(ran), _) => ran,
            (None, asked) => asked.unwrap_or(GENERAL_AGENT).to_owned(),
        };
        let set = self.agents();
        let Some(definition) = set.find(&name) else {
            let known: Vec<&str> = set.loaded().map(|(a, _)| a.name.as_str()).collect();
            return ToolOutcome::error(format!(
                "Error: no agent is called '{name}'. Available agents: {}.",
                known.join(", ")
            ));
        };
        let Some(tools) = self.tools.get().and_then(Weak::upgrade) else {
            return ToolOutcome::error("Error: the agent's tools are gone (shutting down).");
        };
        let _place = tokio::select! {
            place = self.places.acquire() => match place {
                Ok(place) => place,
                Err(_) => return ToolOutcome::error("Error: sub-agents are shut down."),
            },
            () = context.cancel.cancelled() => return cancelled(),
        };
        // The sub-agent's run as a span of its own (OpenTelemetry's GenAI
        // `invoke_agent NAME`): its turn, requests and tool calls nest under it.
        let span = tracing::info_span!(
            "invoke_agent",
            otel.name = %format_args!("invoke_agent {name}"),
            gen_ai.operation.name = "invoke_agent",
            gen_ai.agent.name = %name,
            gen_ai.conversation.id = tracing::field::Empty,
        );
        match self
            .run_agent(definition, tools, parent_id, task, resumed, context)
            .instrument(span)
            .await
        {
            Ok(outcome) => outcome,
            Err(error) => ToolOutcome::error(format!(
                "Error: the sub-agent '{name}' could not run: {error}"
            )),
        }
    }

    /// The conversation `id` names when it is a sub-agent's of `parent_id`.
    async fn resumable(&self, id: &str, parent_id: ConversationId) -> Result<Conversation, String> {
        let not_ours = || {
            format!(
                "'{id}' is no sub-agent conversation of this conversation; 'resume' takes the \
                 id a Delegate result ends with"
            )
        };
        let id: ConversationId = id.trim().parse().map_err(|_| not_ours())?;
        let conversation = self
            .parts
            .store
            .get_conversation(id)
            .await
            .map_err(|e| e.to_string())?
            .ok_or_else(not_ours)?;
        match &conversation.parent {
            Some(link) if link.parent_conversation_id == parent_id => Ok(conversation),
            _ => Err(not_ours()),
        }
    }

    async fn run_agent(
        &self,
        definition: &AgentDefinition,
        tools: Arc<dyn ToolExecutor>,
        parent_id: ConversationId,
        task: &DelegatedTask<'_>,
        resumed: Option<Conversation>,
        context: &ToolContext,
    ) -> Result<ToolOutcome, String> {
        let service = self.service(definition, tools);
        let conversation = match resumed {
            Some(conversation) => conversation,
            None => {
                self.create(&service, definition, parent_id, task, context)
                    .await?
            }
        };
        tracing::Span::current().record(
            "gen_ai.conversation.id",
            tracing::field::display(conversation.id),
        );
        let options = SendOptions {
            cancel: Some(context.cancel.child_token()),
            // Its requests count in the turn that delegated (the root's, when nested).
            billed_to: context.billed_to,
            ..SendOptions::default()
        };
        let (mut progress, mut events) = Progress::follow(
            &self.parts.events,
            parent_id,
            context.turn_id,
            context.call_id.clone().unwrap_or_default(),
            conversation.id,
            definition.name.clone(),
        );
        progress.started(task.description, task.prompt);
        let send = service.send(conversation.id, task.prompt, options);
        tokio::pin!(send);
        let sent = loop {
            tokio::select! {
                biased;
                sent = &mut send => break sent,
                Some(event) = events.recv() => progress.relay(&event),
            }
        };
        while let Some(event) = events.try_recv() {
            progress.relay(&event);
        }
        let outcome = match sent {
            Ok(outcome) => outcome,
            Err(error) => {
                let error = error.to_string();
                progress.finished(SubAgentOutcome::Failed, Some(error.clone()));
                return Err(error);
            }
        };
        let trailer = format!(
            "\n\n[sub-agent '{}', conversation {}]",
            definition.name, conversation.id
        );
        Ok(match outcome.status {
            TurnStatus::Completed => {
                progress.finished(SubAgentOutcome::Completed, None);
                ToolOutcome::ok(format!("{}{trailer}", outcome.text))
            }
            TurnStatus::Cancelled | TurnStatus::Interrupted => {
                progress.finished(SubAgentOutcome::Cancelled, None);
                ToolOutcome {
                    content: format!("Cancelled: the sub-agent was stopped.{trailer}"),
                    status: ToolCallStatus::Cancelled,
                }
            }
            _ => {
                let error = outcome.error.as_deref().unwrap_or("no reason given");
                progress.finished(SubAgentOutcome::Failed, Some(error.to_owned()));
                ToolOutcome::error(format!(
                    "Error: the sub-agent '{}' failed: {error}{trailer}",
                    definition.name,
                ))
            }
        })
    }

    /// A new conversation for `definition`'s run of `task`, linked to the parent's call,
    /// on the definition's model (`inherit`: the one the parent's turn runs on).
    async fn create(
        &self,
        service: &ConversationService,
        definition: &AgentDefinition,
        parent_id: ConversationId,
        task: &DelegatedTask<'_>,
        context: &ToolContext,
    ) -> Result<Conversation, String> {
        // Whose turn delegates, and on which model, as the turn runs: read from the
        // store only when the call came without it.
        let requester = match &context.requester {
            Some(requester) => requester.clone(),
            None => {
                let parent = self
                    .parts
                    .store
                    .get_conversation(parent_id)
                    .await
                    .map_err(|e| e.to_string())?
                    .ok_or_else(|| format!("the conversation {parent_id} is gone"))?;
                CallRequester {
                    user_name: parent.user_name,
                    model: parent.model,
                }
            }
        };
        let link = SubAgentLink {
            parent_conversation_id: parent_id,
            parent_tool_call_id: context.call_id.clone().unwrap_or_default(),
            agent_name: definition.name.clone(),
        };
        let conversation = self
            .parts
            .store
            .create_sub_conversation(
                &requester.user_name,
                &title(&definition.name, task.description),
                link,
            )
            .await
            .map_err(|e| e.to_string())?;
        let model = match &definition.model {
            AgentModel::Inherit => requester.model,
            AgentModel::Id(id) => Some(id.clone()),
        };
        if model.is_some() {
            service
                .set_model(conversation.id, model.as_deref())
                .await
                .map_err(|e| e.to_string())?;
        }
        Ok(conversation)
    }

    /// The service a sub-agent of `definition` runs in: the one its last run used
    /// while the definition is unchanged.
    fn service(
        &self,
        definition: &AgentDefinition,
        tools: Arc<dyn ToolExecutor>,
    ) -> Arc<ConversationService> {
        self.services.get_or_build(definition, || {
            self.parts.build_service(definition, tools, &self.never)
        })
    }
}

/// `NAME: description` on one line, at most [`TITLE_MAX_CHARS`] characters.
fn title(name: &str, description: &str) -> String {
    let words = description.split_whitespace().collect::<Vec<_>>().join(" ");
    let text = if words.is_empty() {
        name.to_owned()
    } else {
        format!("{name}: {words}")
    };
    text.chars().take(TITLE_MAX_CHARS).collect()
}

fn cancelled() -> ToolOutcome {
    ToolOutcome {
        content: "Cancelled: the turn was cancelled before the sub-agent started.".into(),
        status: ToolCallStatus::Cancelled,
    }
}
