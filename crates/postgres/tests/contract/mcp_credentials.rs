//! Contract: sign-ins to MCP servers — one per user and server, replaced by a later
//! save (a refresh), read back alike, listed per user, removed, kept across a
//! reopening. The stores keep the sealed text as given. Runs on SQLite and PostgreSQL.

use chrono::{Duration, SubsecRound, Utc};
use smallebot_core::entities::McpCredential;
use smallebot_core::repository::McpCredentialRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_postgres::PgStore;

use crate::backends::{self, Kind, OrFail};

fn credential(user: &str, server: &str, sealed: &str) -> McpCredential {
    McpCredential {
        user_name: user.to_owned(),
        server: server.to_owned(),
        sealed: sealed.to_owned(),
        updated_at: Utc::now().trunc_subsecs(3),
    }
}

#[tokio::test]
async fn sign_ins_are_stored_replaced_listed_and_removed_alike() {
    for b in backends::each("mcp_sign_ins").await {
        let (name, store) = (b.name, &b.store);
        assert_eq!(
            store.mcp_credential("ann", "tracker").await.or_fail(name),
            None,
            "{name}"
        );
        let first = credential("ann", "tracker", "c2VhbGVkLTE=");
        store.save_mcp_credential(&first).await.or_fail(name);
        let bobs = credential("bob", "tracker", "Ym9i");
        store.save_mcp_credential(&bobs).await.or_fail(name);
        let docs = credential("ann", "docs", "ZG9jcw==");
        store.save_mcp_credential(&docs).await.or_fail(name);
        assert_eq!(
            store.mcp_credential("ann", "tracker").await.or_fail(name),
            Some(first.clone()),
            "{name}"
        );

        // A refresh replaces the row: still one per user and server.
        let mut refreshed = credential("ann", "tracker", "c2VhbGVkLTI=");
        refreshed.updated_at = first.updated_at + Duration::seconds(5);
        store.save_mcp_credential(&refreshed).await.or_fail(name);
        let anns = store.mcp_credentials_of("ann").await.or_fail(name);
        assert_eq!(
            anns,
            vec![docs.clone(), refreshed.clone()],
            "{name}: by server"
        );
        assert_eq!(
            store.mcp_credentials_of("bob").await.or_fail(name),
            vec![bobs.clone()],
            "{name}"
        );

        // Removed only for that user and server.
        assert!(
            store
                .delete_mcp_credential("ann", "tracker")
                .await
                .or_fail(name)
        );
        assert!(
            !store
                .delete_mcp_credential("ann", "tracker")
                .await
                .or_fail(name)
        );
        assert_eq!(
            store.mcp_credential("bob", "tracker").await.or_fail(name),
            Some(bobs.clone()),
            "{name}"
        );

        let again: Box<dyn McpCredentialRepository> = match &b.kind {
            Kind::Sqlite(store) => {
                store.close().await;
                Box::new(SqliteStore::open(store.path()).await.or_fail(name))
            }
            Kind::Postgres(store, url) => {
                store.close().await;
                Box::new(PgStore::connect(url).await.or_fail(name))
            }
        };
        assert_eq!(
            again.mcp_credentials_of("ann").await.or_fail(name),
            vec![docs],
            "{name}: kept across a reopening"
        );
    }
}
