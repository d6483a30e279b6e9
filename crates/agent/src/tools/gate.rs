//! [`PermissionGate`]: the one decision point every tool call passes before it runs.
//!
//! The registry ([`ToolRegistry`](super::ToolRegistry)) hands each call to its gate —
//! the parent's calls, a sub-agent's (its tools are the parent's registry, narrowed) and
//! `Delegate` itself — in this order:
//!
//! 1. the tool's own refusals ([`Tool::permission`]: `ExecuteCommand`'s blacklist,
//!    malformed arguments), which no rule overrides;
//! 2. the permission rules ([`decide`] on the call's [`CallSubject`], which the tool
//!    builds: command words, workspace path, agent name, `mcp__<server>__<tool>`);
//! 3. asking the person when the rules say `ask` (or the tool asks unless a rule allows
//!    it: an MCP tool marked destructive) — unless they allowed calls like it before,
//!    for this conversation or always (grants, stored for the conversation's user when
//!    the gate has a store: [`PermissionGate::with_grant_store`]) — showing the call and
//!    the rule that asked; the answers are once, always in this conversation, always
//!    (an allow rule for this user), or no;
//! 4. running it.
//!
//! Between the rules and asking, the `PreToolUse` hooks of `hooks.json` run (when the
//! gate has [`Hooks`]): they may block the call (their reason goes to the model), allow
//! it without asking, make the gate ask, or rewrite its arguments (the rewritten call
//! passes the tool's refusals and the rules again). After the call, the `PostToolUse`
//! hooks may add context or a reason for the model to its result.
//!
//! In multi-user `serve`, the rules are the home's and the own deny and ask rules of the
//! user whose turn makes the call (`gate_user.rs`): theirs only narrow the home's.
//!
//! A denied call's result names the rule that denied it (and whose it is); its status
//! is `Denied`.

use std::sync::Arc;
use std::time::Duration;

use smallebot_application::ports::{
    Answer, Args, CommandConfirmer, ConfirmationRequest, Hooks, ToolContext, ToolOutcome,
};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::Store;
use smallebot_core::rules::hook::{HookEvent, HookResult};
use smallebot_core::rules::permission::{
    CallArgument, CallSubject, Decision, PermissionRules, Verdict, decide,
};

use super::call_view::{AskFirst, CallView, what};
use super::duration_text::seconds;
use super::gate_hooks::{Cleared, Ruling, add_feedback, post_tool_use, pre_tool_use};
use super::gate_user::{UserAsks, user_ruling};
use super::grants::{Grants, Scope};
use super::tool::Tool;

/// How long the person has to answer by default (terminal.json's
/// `confirmationTimeoutSeconds` replaces it in an assembly from a home).
pub const DEFAULT_CONFIRMATION_TIMEOUT: Duration = Duration::from_secs(60);

/// The permission rules of a home and who is asked when they say `ask`: every call
/// the registry runs passes it — the tool's own refusals, then the rules, then asking
/// the person, then running.
pub struct PermissionGate {
    rules: PermissionRules,
    rules_file: String,
    confirmer: Arc<dyn CommandConfirmer>,
    timeout: Duration,
    grants: Grants,
    hooks: Option<Arc<dyn Hooks>>,
}

impl Default for PermissionGate {
    /// No rules (every call allowed unless its tool asks first), nobody to ask (every
    /// question is a no).
    fn default() -> Self {
        Self::new(
            PermissionRules::default(),
            Arc::new(smallebot_application::ports::DenyAll),
        )
    }
}

impl PermissionGate {
    /// A gate deciding by `rules`, asking `confirmer`, answers awaited for
    /// [`DEFAULT_CONFIRMATION_TIMEOUT`]; results name the rules as agent.json's.
    #[must_use]
    pub fn new(rules: PermissionRules, confirmer: Arc<dyn CommandConfirmer>) -> Self {
        Self {
            rules,
            rules_file: crate::config::file_names::AGENT_FILE.to_owned(),
            confirmer,
            timeout: DEFAULT_CONFIRMATION_TIMEOUT,
            grants: Grants::default(),
            hooks: None,
        }
    }

    /// The same gate keeping the grants people give in `store` (listed and revoked
    /// there; read again at each question), each for the user of the conversation it
    /// was given in.
    #[must_use]
    pub fn with_grant_store(mut self, store: Arc<dyn Store>) -> Self {
        self.grants = Grants::stored_in(store);
        self
    }

    /// The same gate waiting at most `timeout` for an answer.
    #[must_use]
    pub fn with_timeout(mut self, timeout: Duration) -> Self {
        self.timeout = timeout;
        self
    }

    /// The same gate running `hooks` around each call: `PreToolUse` after the rules and
    /// before asking, `PostToolUse` after the call ran.
    #[must_use]
    pub fn with_hooks(mut self, hooks: Arc<dyn Hooks>) -> Self {
        self.hooks = Some(hooks);
        self
    }

    /// The rules it decides by.
    #[must_use]
    pub fn rules(&self) -> &PermissionRules {
        &self.rules
    }

    /// The arguments the call of `tool` runs with (`args`, or what a `PreToolUse`
    /// hook rewrote them to) and the context hooks added, when it may run; else what
    /// the model is told instead (refused by the tool, a rule or a hook, declined by
    /// the person, or the turn cancelled while asking).
    pub(crate) async fn check(
        &self,
        tool: &dyn Tool,
        args: Args,
        context: &ToolContext,
    ) -> Result<Cleared, ToolOutcome> {
        let (mut view, mut ruling) = self.rule(tool, &args, context)?;
        let mut cleared = Cleared {
            args,
            context: None,
        };
        if let Some(hooks) = self.hooks_for(tool.name(), HookEvent::PreToolUse) {
            let said = pre_tool_use(hooks, tool.name(), &cleared.args, context).await;
            if let Some(blocked) = said.blocked(&view.subject) {
                return Err(blocked);
            }
            if let Some(updated) = said.result.updated_input.clone() {
                cleared.args = Args::from_map(tool.name(), updated);
                (view, ruling) = self.rule(tool, &cleared.args, context)?;
            }
            ruling.overruled_by(&said);
            cleared.context = said.result.additional_context;
        }
        match ruling.verdict {
            Verdict::Allow => Ok(cleared),
            Verdict::Deny => Err(self.denied(&ruling.decision, &view.subject)),
            Verdict::Ask if view.ask_first == AskFirst::Itself => Ok(cleared),
            Verdict::Ask => {
                if self.grants.allow(&view.subject, asking_in(context)).await {
                    return Ok(cleared);
                }
                let asked_by = ruling
                    .asked_by
                    .unwrap_or_else(|| self.default_rule(&view.subject));
                let shown = view
                    .shown
                    .clone()
                    .unwrap_or_else(|| shown_call(tool.name(), &cleared.args));
                let question = Question {
                    shown: &shown,
                    tool: tool.name(),
                    asked_by: &asked_by,
                };
                match self.ask(&question, &view.subject, context).await {
                    Some(refused) => Err(refused),
                    None => Ok(cleared),
                }
            }
        }
    }

    /// What the tool's refusals and the rules say of the call of `tool` with `args`: a
    /// refusal, or the call's view and the rules' ruling.
    fn rule(
        &self,
        tool: &dyn Tool,
        args: &Args,
        context: &ToolContext,
    ) -> Result<(CallView, Ruling), ToolOutcome> {
        let view = tool.permission(args, context)?;
        let user_asks = user_ruling(&view.subject, context)?;
        let mut decision = decide(&self.rules, &view.subject);
        let mut asked_by = decision.rule.as_ref().map(|rule| format!("ask {rule}"));
        if let (Some(UserAsks(rule)), Verdict::Allow) = (user_asks, decision.verdict) {
            decision.verdict = Verdict::Ask;
            asked_by = Some(rule);
        }
        if decision.rule.is_none()
            && decision.verdict == Verdict::Allow
            && view.ask_first == AskFirst::UnlessARuleAllows
        {
            decision.verdict = Verdict::Ask;
            asked_by = Some(format!(
                "{} asks before each call no rule allows",
                tool.name()
            ));
        }
        if decision.verdict == Verdict::Deny {
            return Err(self.denied(&decision, &view.subject));
        }
        let verdict = decision.verdict;
        Ok((
            view,
            Ruling {
                decision,
                verdict,
                asked_by,
            },
        ))
    }

    /// The hooks to run for `event` on a call of `tool`, if any apply.
    fn hooks_for(&self, tool: &str, event: HookEvent) -> Option<&dyn Hooks> {
        self.hooks
            .as_deref()
            .filter(|hooks| hooks.wants(event, Some(tool)))
    }

    /// `outcome` with what the `PostToolUse` hooks of the call of `tool` with `args`
    /// say added for the model (their reason when they block, their context), and the
    /// `PreToolUse` hooks' context `before`.
    pub(crate) async fn after(
        &self,
        tool: &str,
        args: &Args,
        context: &ToolContext,
        before: Option<String>,
        mut outcome: ToolOutcome,
    ) -> ToolOutcome {
        if let Some(hooks) = self.hooks_for(tool, HookEvent::PostToolUse) {
            let result = post_tool_use(hooks, tool, args, &outcome, context).await;
            add_feedback(&mut outcome, before, result);
        } else {
            add_feedback(&mut outcome, before, HookResult::default());
        }
        outcome
    }

    /// The default that made the gate ask about `subject`, as the person is told.
    fn default_rule(&self, subject: &CallSubject) -> String {
        if self.rules.tool_defaults.contains_key(&subject.tool) {
            format!("the default for {} (ask)", subject.tool)
        } else {
            "defaultMode ask".to_owned()
        }
    }

    /// Asks the person `question` about the call seen as `subject`; `None` when they
    /// allowed it (a grant kept when they allowed calls like it beyond this one).
    async fn ask(
        &self,
        question: &Question<'_>,
        subject: &CallSubject,
        context: &ToolContext,
    ) -> Option<ToolOutcome> {
        let conversation = asking_in(context);
        let turn = context
            .billed_to
            .as_ref()
            .map(|billed| billed.turn_id)
            .or(context.turn_id);
        let mut request = ConfirmationRequest::new(question.shown, conversation, turn)
            .about(question.tool, question.asked_by);
        if !matches!(
            subject.argument,
            CallArgument::Commands(_) | CallArgument::UnreadableCommand(_)
        ) {
            request = request.not_a_command();
        }
        let answer = tokio::select! {
            answer = self.confirmer.answer(&request, self.timeout) => answer,
            () = context.cancel.cancelled() => {
                return Some(ToolOutcome {
                    content: "[cancelled while waiting for the user's confirmation]".to_owned(),
                    status: ToolCallStatus::Cancelled,
                });
            }
        };
        let scope = match (answer, conversation) {
            (Answer::Always, _) => Some(Scope::Always),
            (Answer::Conversation, Some(id)) => Some(Scope::Conversation(id)),
            _ => None,
        };
        if let Some(scope) = scope {
            self.grants
                .grant(subject, scope, conversation, question.shown)
                .await;
        }
        (!answer.allows()).then(|| ToolOutcome {
            content: format!(
                "Error: the user did not allow this {} (asked by {}: declined, no answer \
                 within {}, or no one to ask — a run without a terminal); it was not run. \
                 Do not retry it unchanged: ask the user how to proceed.",
                what(subject),
                question.asked_by,
                seconds(self.timeout)
            ),
            status: ToolCallStatus::Denied,
        })
    }

    /// The result of a call a deny rule refused, naming the rule.
    pub(super) fn denied(&self, decision: &Decision, subject: &CallSubject) -> ToolOutcome {
        let by = decision.rule.as_deref().map_or_else(
            || "the permission rules".to_owned(),
            |rule| format!("the permission rule `deny {rule}` in {}", self.rules_file),
        );
        ToolOutcome {
            content: format!(
                "Error: this {} was denied by {by}; it was not run. Do not retry it: \
                 do the task another way, or ask the user to change the rule.",
                what(subject)
            ),
            status: ToolCallStatus::Denied,
        }
    }
}

/// A call shown by its tool's name and its arguments (`d__remove {"path":"/data"}`).
fn shown_call(name: &str, args: &Args) -> String {
    format!(
        "{name} {}",
        serde_json::Value::Object(args.as_map().clone())
    )
}

/// A question about one call: how it is shown, its tool, and what asked.
struct Question<'a> {
    shown: &'a str,
    tool: &'a str,
    asked_by: &'a str,
}

/// The conversation a call asks in: the root conversation of a sub-agent's call (the
/// one the person looks at), else the call's own.
fn asking_in(context: &ToolContext) -> Option<ConversationId> {
    context
        .billed_to
        .as_ref()
        .map(|billed| billed.conversation_id)
        .or(context.conversation_id)
}
