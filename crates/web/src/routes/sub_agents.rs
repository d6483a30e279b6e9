//! The sub-agents of a conversation as its timeline carries them: each `Delegate`
//! call's sub-agent read from its own stored conversation (how its latest run ended, how
//! many tool calls it made), so a page loaded again rebuilds their cards. One store
//! query for all of them.

use smallebot_core::entities::{Conversation, SubAgentRun, TurnStatus};
use smallebot_core::repository::{RepoResult, Store};
use smallebot_protocol::api::SubAgentCard;
use smallebot_protocol::events::SubAgentOutcome;

/// The sub-agents `parent` ran, oldest first.
pub(crate) async fn sub_agents_of(
    store: &dyn Store,
    parent: &Conversation,
) -> RepoResult<Vec<SubAgentCard>> {
    let runs = store.sub_agent_runs(parent.id).await?;
    Ok(runs.into_iter().filter_map(card).collect())
}

/// The card of one sub-agent (`None` for a conversation without a link, which the
/// store's query never returns).
fn card(run: SubAgentRun) -> Option<SubAgentCard> {
    let link = run.conversation.parent?;
    let outcome = run.latest_status.and_then(|status| match status {
        TurnStatus::Running => None,
        TurnStatus::Completed => Some(SubAgentOutcome::Completed),
        TurnStatus::Cancelled | TurnStatus::Interrupted => Some(SubAgentOutcome::Cancelled),
        _ => Some(SubAgentOutcome::Failed),
    });
    Some(SubAgentCard {
        call_id: link.parent_tool_call_id,
        conversation_id: run.conversation.id.to_string(),
        agent: link.agent_name,
        title: run.conversation.title,
        outcome,
        error: run.latest_error,
        tool_calls: run.tool_calls,
    })
}
