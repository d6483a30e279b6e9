//! The tools port.

use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use smallebot_core::entities::{BilledTurn, ToolCallStatus, UserRules};
use smallebot_core::ids::{ConversationId, TurnId};
use tokio_util::sync::CancellationToken;

/// A tool's description for the model (OpenAI function schema).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSchema {
    /// PascalCase name.
    pub name: String,
    /// What it does, for the model.
    pub description: String,
    /// JSON Schema of the arguments object.
    pub parameters: serde_json::Value,
}

/// A call to run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolInvocation {
    /// The model's id for the call.
    pub call_id: String,
    /// Tool name.
    pub name: String,
    /// Arguments as JSON text (may be invalid: the executor answers with an error
    /// result the model can act on).
    pub arguments: String,
}

/// Where a call runs: the one source of the conversation a tool works for.
#[derive(Debug, Clone, Default)]
#[non_exhaustive]
pub struct ToolContext {
    /// The conversation, or `None` when a tool is called outside any conversation
    /// (tools that need one answer with their "no conversation context" error).
    pub conversation_id: Option<ConversationId>,
    /// The turn, inside a conversation.
    pub turn_id: Option<TurnId>,
    /// Cancelled when the turn is cancelled; long-running tools must stop promptly.
    pub cancel: CancellationToken,
    /// The model's id of the call being run, inside a turn (a sub-agent's conversation
    /// is linked to it).
    pub call_id: Option<String>,
    /// The turn this call's model requests are billed to — its own turn's, or the
    /// root turn's inside a sub-agent — so a sub-agent started from it bills there too.
    pub billed_to: Option<BilledTurn>,
    /// The tools this turn's searches loaded (`SearchTools`): sent from the next step
    /// on, for the rest of the turn.
    pub loaded_tools: LoadedTools,
    /// The own permission rules of the user whose turn makes the call, when they have
    /// any: decided with the home's.
    pub user_rules: Option<Arc<TurnUserRules>>,
    /// What the call's hooks did (`PreToolUse`, `PostToolUse`), reported by the tool
    /// path for the call's events; each call has its own ([`for_call`](Self::for_call)).
    pub hooks: super::CallHooks,
    /// What the MCP server's questions to the person during the call came to
    /// (elicitation), reported by the MCP client for the call's events; each call has
    /// its own ([`for_call`](Self::for_call)).
    pub elicitations: super::CallElicitations,
    /// The conversation's user and model, inside a turn: whom model requests the call
    /// makes (an MCP server's sampling) are billed to, and which model answers them.
    pub requester: Option<CallRequester>,
}

/// Whose turn makes a call, and on which model its conversation runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallRequester {
    /// The conversation's user.
    pub user_name: String,
    /// The id of the conversation's model (`None`: the default model).
    pub model: Option<String>,
}

/// The own permission rules of the user whose turn makes a call (`smallebot users set
/// NAME --deny RULE --ask RULE`), read when the turn started: the permission gate
/// decides each call with them beside the home's rules, which they only narrow.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnUserRules {
    /// The user's name (a call they deny says whose rule it is).
    pub user: String,
    /// Their rules, as written.
    pub rules: UserRules,
}

impl ToolContext {
    /// A call made by `turn_id` of `conversation_id`, stopped by `cancel`.
    #[must_use]
    pub fn in_turn(
        conversation_id: ConversationId,
        turn_id: TurnId,
        cancel: CancellationToken,
    ) -> Self {
        Self {
            conversation_id: Some(conversation_id),
            turn_id: Some(turn_id),
            cancel,
            call_id: None,
            billed_to: Some(BilledTurn {
                conversation_id,
                turn_id,
            }),
            loaded_tools: LoadedTools::default(),
            user_rules: None,
            hooks: super::CallHooks::default(),
            elicitations: super::CallElicitations::default(),
            requester: None,
        }
    }

    /// The same context deciding its calls with `rules` (its user's own) too.
    #[must_use]
    pub fn with_user_rules(mut self, rules: Option<Arc<TurnUserRules>>) -> Self {
        self.user_rules = rules;
        self
    }

    /// The same context, the tools its calls load kept in `loaded` (the turn's).
    #[must_use]
    pub fn loading_into(mut self, loaded: LoadedTools) -> Self {
        self.loaded_tools = loaded;
        self
    }

    /// The same context, its requests billed to `billed_to`.
    #[must_use]
    pub fn billed_to(mut self, billed_to: BilledTurn) -> Self {
        self.billed_to = Some(billed_to);
        self
    }

    /// The same context, made for `requester`'s turn (`None`: unknown).
    #[must_use]
    pub fn requested_by(mut self, requester: Option<CallRequester>) -> Self {
        self.requester = requester;
        self
    }

    /// The same context for the call `call_id`.
    #[must_use]
    pub fn for_call(mut self, call_id: &str) -> Self {
        self.call_id = Some(call_id.to_owned());
        self.hooks = super::CallHooks::default();
        self.elicitations = super::CallElicitations::default();
        self
    }

    /// A call made outside any conversation.
    #[must_use]
    pub fn outside_conversation() -> Self {
        Self::default()
    }
}

/// How a tool touches the conversation's task list.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum PlanAccess {
    /// Not at all: its calls are recorded on the task in progress.
    #[default]
    None,
    /// It reads the list (not recorded, changes nothing).
    Reads,
    /// It edits the list (not recorded; a successful call changes the plan).
    Edits,
}

/// What a tool declares about itself, so callers never guess from its name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ToolTraits {
    /// Whether a call may change anything outside the conversation's history (files,
    /// processes, the task list).
    pub mutating: bool,
    /// How it touches the task list.
    pub plan: PlanAccess,
}

impl ToolTraits {
    /// A tool that only reads.
    pub const READ_ONLY: Self = Self {
        mutating: false,
        plan: PlanAccess::None,
    };
    /// A tool that may change files or run processes.
    pub const MUTATING: Self = Self {
        mutating: true,
        plan: PlanAccess::None,
    };

    /// A tool with the given task-list access (editing it is mutating).
    #[must_use]
    pub const fn plan(plan: PlanAccess) -> Self {
        Self {
            mutating: matches!(plan, PlanAccess::Edits),
            plan,
        }
    }
}

/// What one call does, as its tool declares it.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct ToolEffects {
    /// The tool's traits.
    pub traits: ToolTraits,
    /// The files the call writes if it succeeds (absolute, normalized), as far as the
    /// tool can tell from its arguments.
    pub written_paths: Vec<String>,
}

impl ToolEffects {
    /// Effects of a call.
    #[must_use]
    pub fn new(traits: ToolTraits, written_paths: Vec<String>) -> Self {
        Self {
            traits,
            written_paths,
        }
    }
}

/// A finished call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolOutcome {
    /// The result text the model sees (full; the history builder truncates).
    pub content: String,
    /// How it ended.
    pub status: ToolCallStatus,
}

impl ToolOutcome {
    /// A successful result.
    pub fn ok(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            status: ToolCallStatus::Ok,
        }
    }

    /// A failed call; `content` says what went wrong and what to do.
    pub fn error(content: impl Into<String>) -> Self {
        Self {
            content: content.into(),
            status: ToolCallStatus::Error,
        }
    }
}

/// The names of the tools a turn's searches loaded, in the order they were loaded
/// (each once); clones share them.
#[derive(Debug, Clone, Default)]
pub struct LoadedTools(Arc<Mutex<Vec<String>>>);

impl LoadedTools {
    /// Adds `names` not loaded yet, at the end.
    pub fn load(&self, names: impl IntoIterator<Item = String>) {
        let mut loaded = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        for name in names {
            if !loaded.contains(&name) {
                loaded.push(name);
            }
        }
    }

    /// The names loaded so far.
    #[must_use]
    pub fn names(&self) -> Vec<String> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }
}

/// The tools as offered when some of them wait until a search finds them.
#[derive(Debug, Clone)]
pub struct OnDemandTools {
    /// Sent with every request while the others wait: the tools that never wait
    /// (built in, pinned) and the search tool.
    pub always: Arc<[ToolSchema]>,
    /// The tools that may wait (MCP tools not pinned), in the registry's order.
    pub deferrable: Arc<[ToolSchema]>,
}

impl OnDemandTools {
    /// The schemas of a request while the deferrable tools wait: [`always`](Self::always),
    /// then those of `loaded` that are deferrable, in the order they were loaded.
    #[must_use]
    pub fn with_loaded(&self, loaded: &[String]) -> Arc<[ToolSchema]> {
        if loaded.is_empty() {
            return Arc::clone(&self.always);
        }
        let found = loaded
            .iter()
            .filter_map(|name| self.deferrable.iter().find(|s| &s.name == name));
        self.always.iter().chain(found).cloned().collect()
    }
}

/// The tools the model may call.
#[async_trait]
pub trait ToolExecutor: Send + Sync {
    /// Schemas of every tool, in a stable order (built once, not per call; built again
    /// only when the tools changed, such as an MCP server's announced list).
    fn schemas(&self) -> std::sync::Arc<[ToolSchema]>;

    /// The tools as offered when the deferrable ones wait for a search (`None`, the
    /// default: none may wait, [`schemas`](Self::schemas) are always sent). Whether
    /// they wait is the pipeline's decision (agent.json `mcp`).
    fn on_demand(&self) -> Option<OnDemandTools> {
        None
    }

    /// What `invocation` does, as its tool declares it (`None`: no such tool).
    fn effects(&self, invocation: &ToolInvocation) -> Option<ToolEffects>;

    /// Runs one call. Never panics: unknown tools, invalid arguments and failures are
    /// outcomes with status `error`.
    async fn execute(&self, invocation: &ToolInvocation, context: &ToolContext) -> ToolOutcome;
}
