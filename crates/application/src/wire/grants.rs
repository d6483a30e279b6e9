//! Permission grants as the wire has them (`GET /api/permissions`).

use smallebot_core::entities::{GrantScope, PermissionGrant};
use smallebot_protocol::api::{GrantReach, PermissionGrantList, PermissionGrantRow};

use super::time;

/// One grant as the API shows it (whose it is is left out: the caller's own).
#[must_use]
pub fn grant(g: &PermissionGrant) -> PermissionGrantRow {
    PermissionGrantRow {
        id: g.id,
        rules: g.rules.clone(),
        scope: match g.scope {
            GrantScope::Always => GrantReach::Always,
            GrantScope::Conversation(_) => GrantReach::Conversation,
        },
        conversation_id: g.scope.conversation().map(|id| id.to_string()),
        granted_at: time(g.granted_at),
        call: g.call.clone(),
    }
}

/// The grants as the answer of `GET /api/permissions`.
#[must_use]
pub fn grant_list(grants: &[PermissionGrant]) -> PermissionGrantList {
    PermissionGrantList {
        grants: grants.iter().map(grant).collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallebot_core::ids::ConversationId;

    fn stored(scope: GrantScope) -> PermissionGrant {
        PermissionGrant {
            id: 7,
            user_name: "ann".into(),
            scope,
            rules: vec!["ExecuteCommand(git status)".into()],
            call: "$ git status".into(),
            granted_at: chrono::DateTime::from_timestamp(1_700_000_000, 0).unwrap(),
            revoked_at: None,
        }
    }

    #[test]
    fn a_grant_shows_its_reach_and_conversation() {
        let id = ConversationId::new();
        let cases = [
            (GrantScope::Always, GrantReach::Always, None),
            (
                GrantScope::Conversation(id),
                GrantReach::Conversation,
                Some(id.to_string()),
            ),
        ];
        for (scope, reach, conversation) in cases {
            let row = grant(&stored(scope));
            assert_eq!(row.scope, reach);
            assert_eq!(row.conversation_id, conversation);
            assert_eq!(row.id, 7);
            assert_eq!(row.granted_at, "2023-11-14T22:13:20Z");
            assert_eq!(row.call, "$ git status");
        }
    }
}
