//! Contract: permission grants — stored and read back alike, selected by user and by
//! the conversation they apply in (always ones and its own), revoked only by their
//! user, hidden once revoked unless asked for, kept across a reopening. Runs on SQLite
//! and PostgreSQL.

use chrono::{Duration, SubsecRound, Utc};
use smallebot_core::entities::{GrantFilter, GrantScope, NewPermissionGrant, PermissionGrant};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::PermissionGrantRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_postgres::PgStore;

use crate::backends::{self, Kind, OrFail};

fn grant(user: &str, scope: GrantScope, rule: &str) -> NewPermissionGrant {
    NewPermissionGrant {
        user_name: user.to_owned(),
        scope,
        rules: vec![rule.to_owned(), format!("{rule}-2")],
        call: format!("asked about {rule}"),
        granted_at: Utc::now().trunc_subsecs(3),
    }
}

fn ids(grants: &[PermissionGrant]) -> Vec<i64> {
    grants.iter().map(|g| g.id).collect()
}

#[tokio::test]
async fn grants_are_stored_selected_and_revoked_alike() {
    for b in backends::each("grants_are_stored").await {
        let (name, store) = (b.name, &b.store);
        let (here, there) = (ConversationId::new(), ConversationId::new());
        let new_always = grant("ann", GrantScope::Always, "ExecuteCommand(git status)");
        let always = store.add_permission_grant(&new_always).await.or_fail(name);
        assert_eq!(
            (
                &always.user_name,
                always.scope,
                &always.rules,
                &always.call,
                always.granted_at,
                always.revoked_at
            ),
            (
                &new_always.user_name,
                new_always.scope,
                &new_always.rules,
                &new_always.call,
                new_always.granted_at,
                None
            ),
            "{name}"
        );
        let add = |g: NewPermissionGrant| async move {
            store.add_permission_grant(&g).await.or_fail(name)
        };
        let in_here = add(grant("ann", GrantScope::Conversation(here), "ReadFile(a)")).await;
        let in_there = add(grant("ann", GrantScope::Conversation(there), "ReadFile(b)")).await;
        let bobs = add(grant("bob", GrantScope::Always, "GetCurrentTime")).await;
        let read = |filter: GrantFilter| async move {
            store.permission_grants(&filter).await.or_fail(name)
        };
        let all = read(GrantFilter::default()).await;
        assert_eq!(
            all,
            vec![
                always.clone(),
                in_here.clone(),
                in_there.clone(),
                bobs.clone()
            ],
            "{name}"
        );
        let applying = read(GrantFilter::applying("ann", Some(here))).await;
        assert_eq!(
            ids(&applying),
            vec![always.id, in_here.id],
            "{name}: applying"
        );
        let bob_there = read(GrantFilter::applying("bob", Some(there))).await;
        assert_eq!(ids(&bob_there), vec![bobs.id], "{name}: per user");

        // Only its user revokes it (when a user is named); an unknown id is none.
        let at = Utc::now().trunc_subsecs(3);
        let by_bob = store
            .revoke_permission_grant(always.id, Some("bob"), at)
            .await
            .or_fail(name);
        assert_eq!(by_bob, None, "{name}: another user's grant");
        let unknown = store
            .revoke_permission_grant(9_999, None, at)
            .await
            .or_fail(name);
        assert_eq!(unknown, None, "{name}: unknown id");
        let revoked = store
            .revoke_permission_grant(always.id, Some("ann"), at)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(revoked.revoked_at, Some(at), "{name}");
        let later = at + Duration::minutes(5);
        let again = store
            .revoke_permission_grant(always.id, None, later)
            .await
            .or_fail(name)
            .or_fail(name);
        assert_eq!(
            again.revoked_at,
            Some(at),
            "{name}: the first revocation stays"
        );

        let live = read(GrantFilter::applying("ann", Some(here))).await;
        assert_eq!(
            ids(&live),
            vec![in_here.id],
            "{name}: revoked allows nothing"
        );
        let with_revoked = read(GrantFilter {
            user: Some("ann".into()),
            revoked: true,
            ..GrantFilter::default()
        })
        .await;
        assert_eq!(
            ids(&with_revoked),
            vec![always.id, in_here.id, in_there.id],
            "{name}: --all"
        );
    }
}

/// A grant is a normal write: a store opened again reads it.
#[tokio::test]
async fn grants_are_kept_when_the_store_is_opened_again() {
    for b in backends::each("grants_are_kept").await {
        let name = b.name;
        let stored = b
            .store
            .add_permission_grant(&grant("ann", GrantScope::Always, "Delegate(x)"))
            .await
            .or_fail(name);
        let again: Box<dyn PermissionGrantRepository> = match &b.kind {
            Kind::Sqlite(store) => {
                store.close().await;
                Box::new(SqliteStore::open(store.path()).await.or_fail(name))
            }
            Kind::Postgres(store, url) => {
                store.close().await;
                Box::new(PgStore::connect(url).await.or_fail(name))
            }
        };
        let read = again
            .permission_grants(&GrantFilter::default())
            .await
            .or_fail(name);
        assert_eq!(read, vec![stored], "{name}");
    }
}
