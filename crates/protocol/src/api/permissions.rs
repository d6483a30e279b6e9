//! `GET /api/permissions`: the signed-in user's live permission grants — what they
//! allowed beyond one call when asked ("always in this conversation", "always") —
//! each revocable with `DELETE /api/permissions/{id}`.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The answer of `GET /api/permissions`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionGrantList {
    /// The user's live grants, oldest first (revoked ones are left out).
    pub grants: Vec<PermissionGrantRow>,
}

/// How far a grant reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum GrantReach {
    /// The rest of one conversation (`conversation_id`).
    Conversation,
    /// Every conversation of the user, from now on.
    Always,
}

/// One grant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct PermissionGrantRow {
    /// Its id, for `DELETE /api/permissions/{id}` (and `smallebot permissions revoke`).
    pub id: i64,
    /// The allow rules it adds, as agent.json writes them (`ExecuteCommand(git status)`).
    pub rules: Vec<String>,
    /// How far it reaches.
    pub scope: GrantReach,
    /// The conversation it is limited to; `null` for `always`.
    pub conversation_id: Option<String>,
    /// When it was given (RFC 3339).
    pub granted_at: String,
    /// The call that prompted it, as the question showed it.
    pub call: String,
}
