//! What a hook's exit and output mean: [`interpret`] one run, [`combine`] the runs of
//! one event.

use serde_json::{Map, Value};

use super::HookEvent;
use crate::entities::HookRun;

/// How a hook's process ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HookExit {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it (no exit code).
    Signalled,
    /// Its time limit passed (seconds); it was killed.
    TimedOut(u64),
    /// The turn was cancelled; it was killed.
    Cancelled,
}

/// What a hook decided about the call, prompt or stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum HookDecision {
    /// Run the call without asking (PreToolUse).
    Allow,
    /// Ask the person (PreToolUse).
    Ask,
    /// Block: the call does not run, the prompt is not sent, the model goes on
    /// (Stop) — with the reason.
    Block,
}

impl HookDecision {
    /// Its name as recorded (`allow`, `ask`, `block`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::Allow => "allow",
            Self::Ask => "ask",
            Self::Block => "block",
        }
    }
}

/// What one hook (or the hooks of one event together) asked for.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HookResult {
    /// Its decision, if it made one.
    pub decision: Option<HookDecision>,
    /// Why (for the model when blocked, for the person when asked).
    pub reason: Option<String>,
    /// The arguments the call runs with instead (PreToolUse).
    pub updated_input: Option<Map<String, Value>>,
    /// Text added to what the model sees.
    pub additional_context: Option<String>,
    /// Set when the hook ends the turn (`continue: false`): the reason, for the person.
    pub stop: Option<String>,
    /// Something the person is warned about (a failed hook, unreadable output).
    pub warning: Option<String>,
    /// The runs behind it as recorded, in the hooks' order (the runner fills them in;
    /// empty outside a conversation).
    pub runs: Vec<HookRun>,
}

/// What one run of the hook `command` for `event` means.
#[must_use]
pub fn interpret(
    event: HookEvent,
    command: &str,
    exit: HookExit,
    stdout: &str,
    stderr: &str,
) -> HookResult {
    match exit {
        HookExit::Code(0) => from_output(event, command, stdout.trim()),
        HookExit::Code(2) => HookResult {
            decision: Some(HookDecision::Block),
            reason: Some(match stderr.trim() {
                "" => format!("blocked by the {event} hook `{command}`"),
                reason => reason.to_owned(),
            }),
            ..HookResult::default()
        },
        other => HookResult {
            warning: Some(failure(event, command, other, stderr.trim())),
            ..HookResult::default()
        },
    }
}

/// The warning of a hook that failed.
fn failure(event: HookEvent, command: &str, exit: HookExit, stderr: &str) -> String {
    let how = match exit {
        HookExit::Code(code) => format!("exited with {code}"),
        HookExit::Signalled => "was ended by a signal".to_owned(),
        HookExit::TimedOut(seconds) => format!("took longer than {seconds} s and was killed"),
        HookExit::Cancelled => "was stopped: the turn was cancelled".to_owned(),
    };
    let said = if stderr.is_empty() {
        String::new()
    } else {
        format!(": {stderr}")
    };
    format!("the {event} hook `{command}` {how}{said}; the turn goes on")
}

/// The meaning of exit 0's standard output.
fn from_output(event: HookEvent, command: &str, stdout: &str) -> HookResult {
    if !stdout.starts_with('{') {
        let context = matches!(event, HookEvent::UserPromptSubmit | HookEvent::SessionStart)
            && !stdout.is_empty();
        return HookResult {
            additional_context: context.then(|| stdout.to_owned()),
            ..HookResult::default()
        };
    }
    let object = match serde_json::from_str::<Value>(stdout) {
        Ok(Value::Object(object)) => object,
        Ok(_) | Err(_) => {
            return HookResult {
                warning: Some(format!(
                    "the {event} hook `{command}` printed output that is not a JSON object; \
                     it was ignored"
                )),
                ..HookResult::default()
            };
        }
    };
    let specific = object.get("hookSpecificOutput").and_then(Value::as_object);
    let field = |name: &str| {
        specific
            .and_then(|s| s.get(name))
            .or_else(|| object.get(name))
    };
    let text = |name: &str| field(name).and_then(Value::as_str).map(str::to_owned);
    let mut result = HookResult {
        reason: text("permissionDecisionReason").or_else(|| text("reason")),
        updated_input: field("updatedInput").and_then(Value::as_object).cloned(),
        additional_context: text("additionalContext").filter(|c| !c.is_empty()),
        ..HookResult::default()
    };
    if let Some(word) = text("permissionDecision").or_else(|| text("decision")) {
        match decision(&word) {
            Some(decision) => result.decision = Some(decision),
            None => {
                result.warning = Some(format!(
                    "the {event} hook `{command}` answered the decision {word:?}, which is \
                     none of allow, deny, ask, block, approve; it was ignored"
                ));
            }
        }
    }
    if field("continue").and_then(Value::as_bool) == Some(false) {
        result.stop = Some(
            text("stopReason")
                .unwrap_or_else(|| format!("the {event} hook `{command}` ended the turn")),
        );
    }
    result
}

/// A decision word as hooks write it.
fn decision(word: &str) -> Option<HookDecision> {
    match word {
        "allow" | "approve" => Some(HookDecision::Allow),
        "ask" => Some(HookDecision::Ask),
        "deny" | "block" => Some(HookDecision::Block),
        _ => None,
    }
}

/// What the hooks of one event mean together: the strongest decision (block over
/// ask over allow) with its reason; the contexts, warnings and stop reasons joined in
/// the hooks' order; the first rewritten input.
#[must_use]
pub fn combine(results: Vec<HookResult>) -> HookResult {
    let mut all = HookResult::default();
    let join = |into: &mut Option<String>, more: Option<String>| {
        if let Some(more) = more {
            *into = Some(match into.take() {
                Some(before) => format!("{before}\n{more}"),
                None => more,
            });
        }
    };
    for result in results {
        if result.decision > all.decision {
            all.decision = result.decision;
            all.reason = result.reason;
        }
        if all.updated_input.is_none() {
            all.updated_input = result.updated_input;
        }
        join(&mut all.additional_context, result.additional_context);
        join(&mut all.stop, result.stop);
        join(&mut all.warning, result.warning);
        all.runs.extend(result.runs);
    }
    all
}
