//! [`Progress`]: a sub-agent's run told on its parent's event stream — started, each of
//! its tool calls as it starts and ends, finished — so the front ends following the
//! parent show it live without following the sub-agent's own conversation.

use std::sync::Arc;

use smallebot_application::events::{
    Event, EventBus, EventKind, EventSubscription, SubAgentOutcome, ToolCallStatus,
};
use smallebot_core::ids::{ConversationId, TurnId};

/// Where a sub-agent's progress goes: the parent's turn, on the shared bus.
pub(super) struct Progress {
    events: Arc<EventBus>,
    parent: ConversationId,
    turn: Option<TurnId>,
    call_id: String,
    sub: ConversationId,
    agent: String,
    tool_calls: u32,
}

impl Progress {
    /// Follows the sub-agent conversation `sub` (subscribed before its turn starts, so
    /// none of its events is missed) for the parent's call `call_id`; the subscription
    /// is handed to [`Progress::relay`].
    pub(super) fn follow(
        events: &Arc<EventBus>,
        parent: ConversationId,
        turn: Option<TurnId>,
        call_id: String,
        sub: ConversationId,
        agent: String,
    ) -> (Self, EventSubscription) {
        let subscription = events.subscribe(sub);
        let progress = Self {
            events: Arc::clone(events),
            parent,
            turn,
            call_id,
            sub,
            agent,
            tool_calls: 0,
        };
        (progress, subscription)
    }

    fn emit(&self, kind: EventKind) {
        self.events.emit(self.parent, self.turn, kind);
    }

    /// Says the sub-agent started on `task` (`description`: the few words shown).
    pub(super) fn started(&self, description: &str, task: &str) {
        self.emit(EventKind::SubAgentStarted {
            call_id: self.call_id.clone(),
            sub_conversation_id: self.sub.to_string(),
            agent: self.agent.clone(),
            description: description.to_owned(),
            task: task.to_owned(),
        });
    }

    /// Passes on what the sub-agent's `event` says about its progress (its tool calls);
    /// the rest (text, usage, its own turn's start and end) stays on its own stream.
    pub(super) fn relay(&mut self, event: &Event) {
        let (tool_name, status) = match &event.kind {
            EventKind::ToolCallStarted { tool_name, .. } => {
                self.tool_calls = self.tool_calls.saturating_add(1);
                (tool_name.clone(), ToolCallStatus::Running)
            }
            EventKind::ToolCallCompleted {
                tool_name, status, ..
            } => (tool_name.clone(), *status),
            _ => return,
        };
        self.emit(EventKind::SubAgentToolCall {
            call_id: self.call_id.clone(),
            sub_conversation_id: self.sub.to_string(),
            agent: self.agent.clone(),
            tool_name,
            status,
            tool_calls: self.tool_calls,
        });
    }

    /// Says the sub-agent ended with `outcome` (`error`: why, when it failed).
    pub(super) fn finished(&self, outcome: SubAgentOutcome, error: Option<String>) {
        self.emit(EventKind::SubAgentFinished {
            call_id: self.call_id.clone(),
            sub_conversation_id: self.sub.to_string(),
            agent: self.agent.clone(),
            outcome,
            error,
            tool_calls: self.tool_calls,
        });
    }
}
