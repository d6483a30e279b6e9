//! The route handlers, one file per resource.

pub(crate) mod agents;
pub(crate) mod attachments;
pub(crate) mod conversations;
pub(crate) mod elicitation;
pub(crate) mod events;
pub(crate) mod export;
pub(crate) mod file_diff;
pub(crate) mod health;
pub(crate) mod markdown;
pub(crate) mod mcp;
pub(crate) mod mcp_offers;
pub(crate) mod metrics;
pub(crate) mod models;
pub(crate) mod page;
pub(crate) mod permissions;
pub(crate) mod rewind;
pub(crate) mod search;
pub(crate) mod skills;
pub(crate) mod sub_agents;
pub(crate) mod timeline;
pub(crate) mod turns;
pub(crate) mod usage;

use smallebot_core::entities::Conversation;
use smallebot_core::ids::ConversationId;

use crate::auth::CurrentUser;
use crate::error::ApiError;
use crate::state::WebState;

/// The caller's conversation `raw_id`; `404` for an unknown id or another user's.
pub(crate) async fn own_conversation(
    state: &WebState,
    user: &CurrentUser,
    raw_id: &str,
) -> Result<Conversation, ApiError> {
    let id: ConversationId = raw_id
        .parse()
        .map_err(|_| ApiError::not_found("conversation", raw_id))?;
    match state.service.store().get_conversation(id).await? {
        Some(c) if *c.user_name == *user.0 => Ok(c),
        _ => Err(ApiError::not_found("conversation", raw_id)),
    }
}
