//! `GET /api/permissions` lists the signed-in user's live grants (id, rules, scope,
//! when, the call that prompted it, the conversation); `DELETE /api/permissions/{id}`
//! revokes one of theirs — another user's grant, an unknown id or no number at all is
//! `404` with the usual JSON error, and nothing is revoked.

use crate::common;

use chrono::Utc;
use common::Server;
use reqwest::StatusCode;
use serde_json::{Value, json};
use smallebot_core::entities::{GrantFilter, GrantScope, NewPermissionGrant};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::PermissionGrantRepository;
use smallebot_web::auth::new_token;

fn grant(user: &str, scope: GrantScope, rule: &str) -> NewPermissionGrant {
    NewPermissionGrant {
        user_name: user.to_owned(),
        scope,
        rules: vec![rule.to_owned()],
        call: format!("the call behind {rule}"),
        // Whole seconds: as every store keeps them.
        granted_at: chrono::DateTime::from_timestamp(1_772_000_000, 0).unwrap(),
    }
}

#[tokio::test]
async fn a_user_lists_and_revokes_only_their_own_grants() {
    let (ann, bob) = (new_token(), new_token());
    let users = common::users(&[(&ann, "ann"), (&bob, "bob")]);
    let s = Server::start_with(|web| web.users(users)).await;
    let conversation = ConversationId::new();
    let store = &s.store;
    let add = |g: NewPermissionGrant| async move { store.add_permission_grant(&g).await.unwrap() };
    let always = add(grant(
        "ann",
        GrantScope::Always,
        "ExecuteCommand(git status)",
    ))
    .await;
    let here = add(grant(
        "ann",
        GrantScope::Conversation(conversation),
        "WriteFile(notes/**)",
    ))
    .await;
    let gone = add(grant("ann", GrantScope::Always, "ReadFile(old.md)")).await;
    s.store
        .revoke_permission_grant(gone.id, None, Utc::now())
        .await
        .unwrap();
    let bobs = add(grant("bob", GrantScope::Always, "ExecuteCommand(ls)")).await;

    let list = |token: &str| {
        let request = s.http.get(s.url("/api/permissions")).bearer_auth(token);
        async move {
            let response = request.send().await.unwrap();
            assert_eq!(response.status(), StatusCode::OK);
            response.json::<Value>().await.unwrap()
        }
    };
    let listed = list(&ann).await;
    assert_eq!(
        listed,
        json!({"grants": [
            {"id": always.id, "rules": ["ExecuteCommand(git status)"], "scope": "always",
             "conversation_id": null,
             "granted_at": smallebot_application::wire::time(always.granted_at),
             "call": "the call behind ExecuteCommand(git status)"},
            {"id": here.id, "rules": ["WriteFile(notes/**)"], "scope": "conversation",
             "conversation_id": conversation.to_string(),
             "granted_at": smallebot_application::wire::time(here.granted_at),
             "call": "the call behind WriteFile(notes/**)"},
        ]})
    );

    let delete = |token: &str, id: String| {
        let request = s
            .http
            .delete(s.url(&format!("/api/permissions/{id}")))
            .bearer_auth(token);
        async move { request.send().await.unwrap() }
    };
    for id in [bobs.id.to_string(), "999999".to_owned(), "abc".to_owned()] {
        let refused = delete(&ann, id.clone()).await;
        assert_eq!(refused.status(), StatusCode::NOT_FOUND, "{id}");
        let body: Value = refused.json().await.unwrap();
        assert_eq!(
            body,
            json!({"error": format!("permission grant {id} not found")})
        );
    }
    let bobs_now = s
        .store
        .permission_grants(&GrantFilter {
            user: Some("bob".into()),
            ..GrantFilter::default()
        })
        .await
        .unwrap();
    assert_eq!(bobs_now.len(), 1, "bob's grant was revoked by ann");

    let revoked = delete(&ann, always.id.to_string()).await;
    assert_eq!(revoked.status(), StatusCode::NO_CONTENT);
    let listed = list(&ann).await;
    let ids: Vec<&Value> = listed["grants"]
        .as_array()
        .unwrap()
        .iter()
        .map(|g| &g["id"])
        .collect();
    assert_eq!(ids, [&json!(here.id)]);
    assert_eq!(list(&bob).await["grants"][0]["id"], json!(bobs.id));

    let anonymous = s.http.get(s.url("/api/permissions")).send().await.unwrap();
    assert_eq!(anonymous.status(), StatusCode::UNAUTHORIZED);
}
