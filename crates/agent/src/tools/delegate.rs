//! `Delegate`: hands a self-contained task to a sub-agent and answers with its answer.

use super::delegate_name::DELEGATE;
use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};

use smallebot_core::agents::GENERAL_AGENT;
use smallebot_core::rules::permission::CallSubject;
use tokio_util::task::AbortOnDropHandle;
use tracing::Instrument;

use super::call_view::CallView;
use super::typed::TypedTool;
use crate::subagents::{DelegatedTask, SubAgentRunner};

/// The most agents named in the tool's description.
const LISTED_AGENTS_MAX: usize = 30;

/// `Delegate`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DelegateArgs {
    /// The agent to hand the task to (one of the agents listed in this tool's
    /// description); default "general".
    #[serde(default)]
    pub agent: Option<String>,
    /// The task, self-contained: the agent sees nothing of this conversation but this
    /// text.
    pub prompt: String,
    /// 3-7 words saying what the agent does, shown to the person.
    pub description: String,
    /// To continue an earlier sub-agent with its history: the conversation id its
    /// Delegate result ended with (then 'agent' may be left out).
    #[serde(default)]
    pub resume: Option<String>,
}

/// Runs a sub-agent through a [`SubAgentRunner`].
pub struct Delegate {
    runner: Arc<SubAgentRunner>,
}

impl Delegate {
    /// The tool's name.
    pub const NAME: &'static str = DELEGATE;

    /// The tool over `runner`.
    #[must_use]
    pub fn new(runner: Arc<SubAgentRunner>) -> Self {
        Self { runner }
    }
}

#[async_trait]
impl TypedTool for Delegate {
    type Args = DelegateArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        // The sub-agent may use the parent's mutating tools.
        ToolTraits::MUTATING
    }

    /// Seen as the agent it runs (`general` when none is named and nothing is resumed;
    /// a resumed conversation's agent is not known here: the tool alone).
    fn permission(&self, args: &DelegateArgs) -> Result<CallView, ToolOutcome> {
        let agent = match (&args.agent, &args.resume) {
            (Some(agent), _) => Some(agent.as_str()),
            (None, None) => Some(GENERAL_AGENT),
            (None, Some(_)) => None,
        };
        Ok(CallView::new(match agent {
            Some(agent) => CallSubject::agent(Self::NAME, agent),
            None => CallSubject::tool(Self::NAME),
        }))
    }

    fn description(&self) -> String {
        let set = self.runner.agents();
        let mut agents: Vec<String> = set
            .loaded()
            .take(LISTED_AGENTS_MAX)
            .map(|(entry, definition)| {
                let words = definition
                    .description
                    .split_whitespace()
                    .collect::<Vec<_>>()
                    .join(" ");
                format!("- {}: {words}", entry.name)
            })
            .collect();
        let more = set.loaded().count().saturating_sub(LISTED_AGENTS_MAX);
        if more > 0 {
            agents.push(format!("- ({more} more agents are not listed)"));
        }
        format!(
            "Hand a self-contained task to a sub-agent, which works on it with its own tools \
             in a conversation of its own and answers; its answer is this tool's result. \
             Delegate independent parts of a task, broad searches or reading that would \
             fill your own context; several Delegate calls in one step run at once. The \
             agent sees only the prompt: say everything it needs. Agents:\n{}",
            agents.join("\n")
        )
    }

    async fn run(&self, args: DelegateArgs, context: &ToolContext) -> ToolOutcome {
        if args.prompt.trim().is_empty() {
            return ToolOutcome::error("Error: 'prompt' is empty; give the agent its whole task.");
        }
        // A task of its own: the sub-agents of one step run on every worker thread
        // rather than all on the parent turn's, and their writes meet in shared
        // transactions. Dropped with the parent's call, it is aborted with it.
        let runner = Arc::clone(&self.runner);
        let context = context.clone();
        let run = async move {
            let task = DelegatedTask {
                agent: args.agent.as_deref(),
                prompt: &args.prompt,
                description: &args.description,
                resume: args.resume.as_deref(),
            };
            runner.run(&task, &context).await
        };
        match AbortOnDropHandle::new(tokio::spawn(run.in_current_span())).await {
            Ok(outcome) => outcome,
            Err(stopped) if stopped.is_panic() => std::panic::resume_unwind(stopped.into_panic()),
            Err(_) => ToolOutcome::error("Error: the sub-agent was stopped (shutting down)."),
        }
    }
}
