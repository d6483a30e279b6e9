//! The sub-agents of a conversation as its timeline carries them: each `Delegate`
//! call's sub-agent read from its own stored conversation (how its latest run ended, how
//! many tool calls it made), so a page loaded again rebuilds their cards.

use smallebot_core::entities::{Conversation, HistoryRow, TurnStatus};
use smallebot_core::repository::{RepoResult, Store};
use smallebot_protocol::api::SubAgentCard;
use smallebot_protocol::events::SubAgentOutcome;

/// The sub-agents `parent` ran, oldest first.
pub(crate) async fn sub_agents_of(
    store: &dyn Store,
    parent: &Conversation,
) -> RepoResult<Vec<SubAgentCard>> {
    let mut children: Vec<Conversation> = store
        .list_conversations(Some(&parent.user_name))
        .await?
        .into_iter()
        .filter(|c| {
            c.parent
                .as_ref()
                .is_some_and(|l| l.parent_conversation_id == parent.id)
        })
        .collect();
    children.sort_by_key(|c| c.created_at);
    let mut cards = Vec::with_capacity(children.len());
    for child in children {
        let Some(link) = child.parent.clone() else {
            continue;
        };
        let turns = store.list_turns(child.id).await?;
        let latest = turns.last();
        let tool_calls = match latest {
            Some(turn) => store
                .rows_after(child.id, 0)
                .await?
                .iter()
                .filter(|r| matches!(r, HistoryRow::ToolCall(_)) && r.turn_id() == turn.id)
                .count(),
            None => 0,
        };
        let outcome = latest.and_then(|t| match t.status {
            TurnStatus::Running => None,
            TurnStatus::Completed => Some(SubAgentOutcome::Completed),
            TurnStatus::Cancelled | TurnStatus::Interrupted => Some(SubAgentOutcome::Cancelled),
            _ => Some(SubAgentOutcome::Failed),
        });
        cards.push(SubAgentCard {
            call_id: link.parent_tool_call_id,
            conversation_id: child.id.to_string(),
            agent: link.agent_name,
            title: child.title.clone(),
            outcome,
            error: latest.and_then(|t| t.error.clone()),
            tool_calls: u32::try_from(tool_calls).unwrap_or(u32::MAX),
        });
    }
    Ok(cards)
}
