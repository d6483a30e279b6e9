//! Contract: usage records — stored and read back alike, selected by user, moment,
//! conversation and turn, their cost summed (unpriced ones count nothing), kept when
//! their conversation is deleted. Runs on SQLite and PostgreSQL.

use chrono::{Duration, SubsecRound, Utc};
use smallebot_core::entities::{
    TokenCounts, UsageAccount, UsageFilter, UsageOutcome, UsagePurpose, UsageRecord,
};
use smallebot_core::ids::{ConversationId, TurnId};

use smallebot_core::repository::UsageRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_postgres::PgStore;

use crate::backends::{self, Kind, OrFail};

fn record(
    user: &str,
    conversation: ConversationId,
    turn: Option<TurnId>,
    cost: Option<i64>,
) -> UsageRecord {
    UsageRecord {
        account: UsageAccount {
            user_name: user.to_owned(),
            conversation_id: conversation,
            turn_id: turn,
            sub_conversation_id: None,
            step: 1,
        },
        purpose: UsagePurpose::Chat,
        model: "big".to_owned(),
        tokens: Some(TokenCounts {
            prompt: 1000,
            cached_prompt: 600,
            completion: 50,
            reasoning: 20,
        }),
        cost,
        currency: cost.map(|_| "USD".to_owned()),
        first_token_ms: Some(120),
        duration_ms: 900,
        retries: 1,
        outcome: UsageOutcome::Ok,
        at: Utc::now().trunc_subsecs(3),
    }
}

#[tokio::test]
async fn usage_is_recorded_selected_and_summed_alike() {
    for b in backends::each("usage_is_recorded").await {
        let (name, store) = (b.name, &b.store);
        let ann = store.create_conversation("ann", "a").await.or_fail(name);
        let turn = TurnId::new();
        let first = record("ann", ann.id, Some(turn), Some(1_500_000_000));
        let mut sub = record("ann", ann.id, Some(turn), Some(500));
        sub.account.sub_conversation_id = Some(ConversationId::new());
        sub.account.step = 2;
        sub.purpose = UsagePurpose::Summary;
        let mut failed = record("ann", ann.id, None, None);
        failed.tokens = None;
        failed.first_token_ms = None;
        failed.outcome = UsageOutcome::Failed;
        failed.purpose = UsagePurpose::Title;
        let mut old = record("bob", ConversationId::new(), None, Some(7));
        old.at -= Duration::days(40);
        for r in [&first, &sub, &failed, &old] {
            store.record_usage(r.clone());
        }
        let all = store
            .usage_records(&UsageFilter::default())
            .await
            .or_fail(name);
        assert_eq!(
            all,
            vec![first.clone(), sub.clone(), failed.clone(), old.clone()],
            "{name}"
        );
        let by = |filter: UsageFilter| async move {
            let records = store.usage_records(&filter).await.or_fail(name);
            let cost = store.usage_cost(&filter).await.or_fail(name);
            (records.len(), cost)
        };
        let ann_only = UsageFilter {
            user: Some("ann".into()),
            ..UsageFilter::default()
        };
        assert_eq!(by(ann_only).await, (3, 1_500_000_500), "{name}: by user");
        let turn_only = UsageFilter {
            turn: Some(turn),
            ..UsageFilter::default()
        };
        assert_eq!(by(turn_only).await, (2, 1_500_000_500), "{name}: by turn");
        let recent = UsageFilter {
            since: Some(Utc::now() - Duration::days(1)),
            ..UsageFilter::default()
        };
        assert_eq!(by(recent).await, (3, 1_500_000_500), "{name}: since");
        let nothing = UsageFilter {
            conversation: Some(ConversationId::new()),
            ..UsageFilter::default()
        };
        assert_eq!(by(nothing).await, (0, 0), "{name}: none selected");
        // Usage stays when its conversation goes.
        assert!(store.delete_conversation(ann.id).await.or_fail(name));
        let of_ann = UsageFilter {
            conversation: Some(ann.id),
            ..UsageFilter::default()
        };
        assert_eq!(by(of_ann).await, (3, 1_500_000_500), "{name}: kept");
    }
}

/// A record is queued, not awaited: closing the store writes what is still queued, so a
/// store opened again reads it.
#[tokio::test]
async fn queued_usage_is_written_when_the_store_closes() {
    for b in backends::each("queued_usage_at_close").await {
        let name = b.name;
        let ann = b.store.create_conversation("ann", "a").await.or_fail(name);
        let first = record("ann", ann.id, None, Some(5));
        let second = record("ann", ann.id, None, Some(7));
        b.store.record_usage(first.clone());
        b.store.record_usage(second.clone());
        let again: Box<dyn UsageRepository> = match &b.kind {
            Kind::Sqlite(store) => {
                store.close().await;
                Box::new(SqliteStore::open(store.path()).await.or_fail(name))
            }
            Kind::Postgres(store, url) => {
                store.close().await;
                Box::new(PgStore::connect(url).await.or_fail(name))
            }
        };
        let stored = again
            .usage_records(&UsageFilter::default())
            .await
            .or_fail(name);
        assert_eq!(stored, vec![first, second], "{name}");
    }
}
