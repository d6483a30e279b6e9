//! The hooks' part of the [`PermissionGate`](super::PermissionGate): the input of a
//! tool call's `PreToolUse` and `PostToolUse` hooks, and what their answers do to the
//! call and its result.

use serde_json::{Value, json};
use smallebot_application::ports::{Args, Hooks, ToolContext, ToolOutcome};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::rules::hook::{HookDecision, HookEvent, HookInput, HookResult};
use smallebot_core::rules::permission::{CallSubject, Decision, Verdict};

use super::call_view::what;

/// A call the gate let through: the arguments it runs with and the context its
/// `PreToolUse` hooks added for the model.
pub(crate) struct Cleared {
    /// The arguments (rewritten by a hook's `updatedInput`, or the model's).
    pub(crate) args: Args,
    /// What the hooks added, put after the call's result.
    pub(crate) context: Option<String>,
}

/// What the rules said of a call that they did not deny.
pub(super) struct Ruling {
    /// The rules' decision.
    pub(super) decision: Decision,
    /// What the gate does: the decision's verdict, or a hook's.
    pub(super) verdict: Verdict,
    /// What made the gate ask, as the person is told.
    pub(super) asked_by: Option<String>,
}

impl Ruling {
    /// A `PreToolUse` hook's `allow` runs the call without asking; its `ask` asks
    /// even when the rules allow (a deny rule was applied before the hooks ran).
    pub(super) fn overruled_by(&mut self, said: &PreSaid) {
        match said.result.decision {
            Some(HookDecision::Allow) => self.verdict = Verdict::Allow,
            Some(HookDecision::Ask) => {
                self.verdict = Verdict::Ask;
                self.asked_by = Some(match &said.result.reason {
                    Some(reason) => format!("a PreToolUse hook: {reason}"),
                    None => "a PreToolUse hook".to_owned(),
                });
            }
            Some(HookDecision::Block) | None => {}
        }
    }
}

/// What the `PreToolUse` hooks of a call said together.
pub(super) struct PreSaid {
    /// Their combined result.
    pub(super) result: HookResult,
}

impl PreSaid {
    /// The result of the call when the hooks blocked it (`block`/`deny`, exit 2, or
    /// `continue: false`): denied, with the hook's reason for the model.
    pub(super) fn blocked(&self, subject: &CallSubject) -> Option<ToolOutcome> {
        let reason = match (&self.result.decision, &self.result.stop) {
            (Some(HookDecision::Block), _) => self.result.reason.clone(),
            (_, Some(stop)) => Some(stop.clone()),
            _ => return None,
        };
        let reason = reason.unwrap_or_else(|| "no reason given".to_owned());
        Some(ToolOutcome {
            content: format!(
                "Error: a PreToolUse hook blocked this {}; it was not run. The hook said: \
                 {reason}",
                what(subject)
            ),
            status: ToolCallStatus::Denied,
        })
    }
}

/// The input of a tool call's hooks.
fn input(event: HookEvent, tool: &str, args: &Args, context: &ToolContext) -> HookInput {
    let mut input = HookInput::new(
        event,
        String::new(),
        context.conversation_id.map(|id| id.to_string()),
        context.turn_id.map(|id| id.to_string()),
    );
    input.tool_name = Some(tool.to_owned());
    input.tool_use_id.clone_from(&context.call_id);
    input.tool_input = Some(Value::Object(args.as_map().clone()));
    input
}

/// Runs the `PreToolUse` hooks of the call of `tool` with `args`.
pub(super) async fn pre_tool_use(
    hooks: &dyn Hooks,
    tool: &str,
    args: &Args,
    context: &ToolContext,
) -> PreSaid {
    let input = input(HookEvent::PreToolUse, tool, args, context);
    let result = hooks
        .run(HookEvent::PreToolUse, input, &context.cancel)
        .await;
    report(&result, context);
    PreSaid { result }
}

/// Runs the `PostToolUse` hooks of the call of `tool` with `args` that ended as
/// `outcome`.
pub(super) async fn post_tool_use(
    hooks: &dyn Hooks,
    tool: &str,
    args: &Args,
    outcome: &ToolOutcome,
    context: &ToolContext,
) -> HookResult {
    let mut input = input(HookEvent::PostToolUse, tool, args, context);
    input.tool_response = Some(json!({
        "content": outcome.content,
        "status": outcome.status.as_str(),
    }));
    let result = hooks
        .run(HookEvent::PostToolUse, input, &context.cancel)
        .await;
    report(&result, context);
    result
}

/// Reports the hooks' runs and warning (a hook that failed) on the call, for its
/// events, and logs the warning.
fn report(result: &HookResult, context: &ToolContext) {
    if let Some(warning) = &result.warning {
        tracing::warn!("{warning}");
    }
    context.hooks.report(result);
}

/// Adds to a call's result what its hooks said for the model: the `PreToolUse`
/// hooks' context `before`, then the `PostToolUse` hooks' reason (exit 2 or
/// `block`) and context.
pub(super) fn add_feedback(outcome: &mut ToolOutcome, before: Option<String>, after: HookResult) {
    let mut add = |label: &str, text: Option<String>| {
        if let Some(text) = text.filter(|t| !t.trim().is_empty()) {
            outcome.content.push_str(&format!("\n\n[{label}] {text}"));
        }
    };
    add("PreToolUse hook", before);
    if after.decision == Some(HookDecision::Block) {
        add("PostToolUse hook", after.reason);
    }
    add("PostToolUse hook", after.additional_context);
}
