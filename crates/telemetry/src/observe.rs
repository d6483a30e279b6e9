//! Events into series.

use std::collections::{HashMap, HashSet};
use std::time::Instant;

use smallebot_application::events::{CompressionTrigger, Event, EventKind, ToolCallStatus};
use smallebot_core::ids::ConversationId;
use smallebot_protocol::events::SubAgentOutcome;

use crate::Metrics;
use crate::series::{
    CompressionLabels, OutcomeLabels, RetryLabels, SubAgentLabels, ToolLabels, ToolNameLabels,
};

/// When each running turn and tool call started (by conversation; a call by its id).
#[derive(Debug, Default)]
pub(crate) struct Started {
    turns: HashMap<ConversationId, Instant>,
    calls: HashMap<(ConversationId, String), Instant>,
    /// The sub-agents working for a conversation's turn, by their Delegate call.
    sub_agents: HashMap<ConversationId, HashSet<String>>,
}

/// Counts what `event` says.
pub(crate) fn observe(metrics: &Metrics, event: &Event) {
    let series = &metrics.series;
    let conversation = event.conversation_id;
    // Most events are streamed text: counted by nothing, so they take no lock.
    if matches!(
        event.kind,
        EventKind::TextDelta { .. }
            | EventKind::ReasoningDelta { .. }
            | EventKind::ContextUsage { .. }
    ) {
        return;
    }
    let mut started = match metrics.started.lock() {
        Ok(started) => started,
        Err(poisoned) => poisoned.into_inner(),
    };
    match &event.kind {
        EventKind::TurnStarted => {
            series.active_turns.inc();
            started.turns.insert(conversation, Instant::now());
        }
        EventKind::TurnCompleted { .. } => {
            end_turn(metrics, &mut started, conversation, "completed")
        }
        EventKind::TurnCancelled => end_turn(metrics, &mut started, conversation, "cancelled"),
        EventKind::TurnFailed { .. } => end_turn(metrics, &mut started, conversation, "failed"),
        EventKind::ToolCallStarted { call_id, .. } => {
            started
                .calls
                .insert((conversation, call_id.clone()), Instant::now());
        }
        EventKind::ToolCallCompleted {
            call_id,
            tool_name,
            status,
            ..
        } => {
            series
                .tool_calls
                .get_or_create(&ToolLabels {
                    tool: tool_name.clone(),
                    outcome: tool_outcome(*status),
                })
                .inc();
            if let Some(at) = started.calls.remove(&(conversation, call_id.clone())) {
                series
                    .tool_call_seconds
                    .get_or_create(&ToolNameLabels {
                        tool: tool_name.clone(),
                    })
                    .observe(at.elapsed().as_secs_f64());
            }
        }
        EventKind::SubAgentStarted { call_id, .. }
            if started
                .sub_agents
                .entry(conversation)
                .or_default()
                .insert(call_id.clone()) =>
        {
            series.active_sub_agents.inc();
        }
        EventKind::SubAgentFinished {
            call_id,
            agent,
            outcome,
            ..
        } => {
            series
                .sub_agents
                .get_or_create(&SubAgentLabels {
                    agent: agent.clone(),
                    outcome: sub_agent_outcome(*outcome),
                })
                .inc();
            if started
                .sub_agents
                .get_mut(&conversation)
                .is_some_and(|working| working.remove(call_id))
            {
                series.active_sub_agents.dec();
            }
        }
        EventKind::Retrying { reason, .. } => retried(metrics, reason),
        EventKind::CompressionCompleted { trigger, ok, .. } => {
            series
                .compressions
                .get_or_create(&CompressionLabels {
                    trigger: trigger_word(*trigger),
                    outcome: if *ok { "ok" } else { "failed" },
                })
                .inc();
        }
        _ => {}
    }
}

/// A turn of `conversation` ended with `outcome`.
fn end_turn(
    metrics: &Metrics,
    started: &mut Started,
    conversation: ConversationId,
    outcome: &'static str,
) {
    let series = &metrics.series;
    series.turns.get_or_create(&OutcomeLabels { outcome }).inc();
    if let Some(at) = started.turns.remove(&conversation) {
        series.active_turns.dec();
        series.turn_seconds.observe(at.elapsed().as_secs_f64());
    }
    // The turn's calls and sub-agents that never said they ended are forgotten with it.
    started.calls.retain(|(c, _), _| *c != conversation);
    if let Some(working) = started.sub_agents.remove(&conversation) {
        for _ in working {
            series.active_sub_agents.dec();
        }
    }
}

/// A tool call's outcome as a label word.
fn tool_outcome(status: ToolCallStatus) -> &'static str {
    match status {
        ToolCallStatus::Running => "running",
        ToolCallStatus::Ok => "ok",
        ToolCallStatus::Error => "error",
        ToolCallStatus::Denied => "denied",
        ToolCallStatus::Cancelled => "cancelled",
        ToolCallStatus::Interrupted => "interrupted",
        _ => "other",
    }
}

/// A sub-agent's outcome as a label word.
fn sub_agent_outcome(outcome: SubAgentOutcome) -> &'static str {
    match outcome {
        SubAgentOutcome::Completed => "completed",
        SubAgentOutcome::Failed => "failed",
        SubAgentOutcome::Cancelled => "cancelled",
        _ => "other",
    }
}

/// A compression trigger as a label word.
fn trigger_word(trigger: CompressionTrigger) -> &'static str {
    match trigger {
        CompressionTrigger::BeforeTurn => "before_turn",
        CompressionTrigger::MidTurn => "mid_turn",
        CompressionTrigger::Overflow => "overflow",
        CompressionTrigger::Manual => "manual",
        _ => "other",
    }
}

/// One more retry for `cause`.
fn retried(metrics: &Metrics, cause: &str) {
    let cause = RetryLabels {
        cause: cause.to_owned(),
    };
    metrics.series.model_retries.get_or_create(&cause).inc();
}
