//! Contract: uploads never sent are held to the quotas of agent.json — bytes waiting
//! per conversation and per user, checked in the write that stores them, all files of
//! an upload or none, never both of two uploads at once past a quota — and expire:
//! deleted with their content (before an upload, and when swept). Runs on SQLite and
//! PostgreSQL.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{Attachment, Conversation, NewAttachment, NewTurn, TurnStatus};
use smallebot_core::rules::attachment::describe;
use smallebot_core::rules::upload_quota::{QuotaRefusal, UploadQuotas};

use std::sync::Arc;

use smallebot_core::repository::AttachmentRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_postgres::PgStore;

use crate::backends::{self, Backend, Kind, OrFail, owner};

/// Quotas of `user` and `conversation` bytes, expiring after `expiry` seconds.
fn quotas(user: i64, conversation: i64, expiry: i64) -> UploadQuotas {
    UploadQuotas {
        max_pending_bytes_per_user: user,
        max_pending_bytes_per_conversation: conversation,
        pending_expiry_seconds: expiry,
        ..UploadQuotas::default()
    }
}

/// A text file of `size` bytes whose content no other file here has.
fn file(c: &Conversation, name: &str, size: usize) -> NewAttachment {
    let mut content = format!("{name} {} ", c.id).into_bytes();
    content.resize(size, b'x');
    NewAttachment {
        conversation_id: c.id,
        facts: describe(name, &content),
        content,
    }
}

impl Backend {
    async fn upload(
        &self,
        files: &[NewAttachment],
        quotas: &UploadQuotas,
    ) -> Result<Vec<Attachment>, RepositoryError> {
        self.store.put_attachments(files, quotas).await
    }

    /// A second store on the same database, as another `serve` process opens it.
    async fn second_store(&self) -> Arc<dyn AttachmentRepository> {
        match &self.kind {
            Kind::Sqlite(store) => Arc::new(SqliteStore::open(store.path()).await.unwrap()),
            Kind::Postgres(_, url) => Arc::new(PgStore::connect(url).await.unwrap()),
        }
    }

    async fn unsent(&self, c: &Conversation) -> Vec<String> {
        let all = self.store.conversation_attachments(c.id).await;
        all.or_fail(self.name)
            .into_iter()
            .filter(|a| a.message_id.is_none())
            .map(|a| a.name)
            .collect()
    }

    async fn send_with(&self, c: &Conversation, ids: &[smallebot_core::ids::AttachmentId]) {
        let owner = owner();
        let started = self
            .store
            .start_turn_in_context(&NewTurn {
                attachments: ids,
                token_count: 3,
                ..NewTurn::new(c.id, "with files", &owner)
            })
            .await
            .or_fail(self.name);
        self.store
            .finish_turn(started.turn.id, TurnStatus::Completed, None)
            .await
            .or_fail(self.name);
    }
}

fn over(result: &Result<Vec<Attachment>, RepositoryError>) -> Option<&QuotaRefusal> {
    match result {
        Err(RepositoryError::OverQuota(refusal)) => Some(refusal),
        _ => None,
    }
}

#[tokio::test]
async fn unsent_uploads_are_held_to_the_quotas_of_their_conversation_and_user() {
    for b in backends::each("upload_quotas").await {
        let name = b.name;
        let (ann1, ann2, bob) = (
            b.conversation("ann").await,
            b.conversation("ann").await,
            b.conversation("bob").await,
        );
        let q = quotas(100, 60, 3600);
        // Over the conversation's quota together: neither file is stored.
        let both = b
            .upload(&[file(&ann1, "a.txt", 50), file(&ann1, "b.txt", 20)], &q)
            .await;
        assert!(
            matches!(
                over(&both),
                Some(QuotaRefusal::ConversationPending { total: 70, .. })
            ),
            "{name}: {both:?}"
        );
        assert!(b.unsent(&ann1).await.is_empty(), "{name}: nothing stored");
        assert_eq!(b.contents().await, 0, "{name}: no content left behind");

        let first = b
            .upload(&[file(&ann1, "a.txt", 50)], &q)
            .await
            .or_fail(name);
        b.upload(&[file(&ann2, "c.txt", 50)], &q)
            .await
            .or_fail(name);
        // Ann's conversations together are at her quota.
        let more = b.upload(&[file(&ann2, "d.txt", 1)], &q).await;
        assert!(
            matches!(
                over(&more),
                Some(QuotaRefusal::UserPending { total: 101, .. })
            ),
            "{name}: {more:?}"
        );
        // Bob is not held to Ann's uploads.
        b.upload(&[file(&bob, "e.txt", 60)], &q).await.or_fail(name);
        // What is sent waits no more.
        b.send_with(&ann1, &[first[0].id]).await;
        b.upload(&[file(&ann2, "d.txt", 10)], &q)
            .await
            .or_fail(name);
        assert_eq!(b.unsent(&ann2).await, ["c.txt", "d.txt"], "{name}");
    }
}

#[tokio::test]
async fn two_uploads_at_once_never_both_pass_a_quota() {
    for b in backends::each("upload_quota_race").await {
        let name = b.name;
        let q = quotas(100, 100, 3600);
        // As two `serve` processes on one database would.
        let other = b.second_store().await;
        for round in 0..8 {
            let user = format!("racer{round}");
            let (one, two) = (b.conversation(&user).await, b.conversation(&user).await);
            let (first, second) = ([file(&one, "a.txt", 60)], [file(&two, "b.txt", 60)]);
            let (a, c) = tokio::join!(b.upload(&first, &q), other.put_attachments(&second, &q));
            let passed = usize::from(a.is_ok()) + usize::from(c.is_ok());
            assert_eq!(passed, 1, "{name}, round {round}: {a:?} / {c:?}");
            assert!(over(&a).is_some() || over(&c).is_some(), "{name}");
        }
    }
}

#[tokio::test]
async fn uploads_left_unsent_expire_with_their_content() {
    for b in backends::each("upload_expiry").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let q = quotas(100, 60, 3600);
        let old = b.upload(&[file(&c, "old.txt", 40)], &q).await.or_fail(name);
        let sent = b
            .upload(&[file(&c, "sent.txt", 10)], &q)
            .await
            .or_fail(name);
        b.send_with(&c, &[sent[0].id]).await;
        assert_eq!(b.contents().await, 2, "{name}");
        let later = chrono::Utc::now() + chrono::Duration::seconds(1);
        let deleted = b.store.delete_unsent_before(later).await.or_fail(name);
        assert_eq!(deleted, 1, "{name}: the unsent upload");
        let gone = b.store.get_attachment(old[0].id).await.or_fail(name);
        assert!(gone.is_none(), "{name}");
        assert_eq!(b.contents().await, 1, "{name}: its content went too");
        let kept = b.store.get_attachment(sent[0].id).await.or_fail(name);
        assert!(kept.is_some(), "{name}: a sent file stays");

        // An upload deletes what expired first, and it no longer counts.
        let short = quotas(100, 60, 1);
        let stale = b
            .upload(&[file(&c, "stale.txt", 50)], &short)
            .await
            .or_fail(name);
        tokio::time::sleep(std::time::Duration::from_millis(1100)).await;
        b.upload(&[file(&c, "fresh.txt", 50)], &short)
            .await
            .or_fail(name);
        let stale = b.store.get_attachment(stale[0].id).await.or_fail(name);
        assert!(stale.is_none(), "{name}: the expired upload was deleted");
        assert_eq!(b.unsent(&c).await, ["fresh.txt"], "{name}");
    }
}
