//! Automatic retention in a turn: after a comparison that found changes, a service
//! prunes once its interval has passed since its start or last prune (not before), and
//! after a prune that removed contents it indexes the workspace afresh, keeping again
//! the contents of the files there. The store is an in-memory double of the
//! conversation store's checkpoint part.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use smallebot_application::ports::WorkspaceChanges;
use smallebot_checkpoints::{Limits, Retention, TurnCheckpoints};
use smallebot_core::entities::TurnFileChange;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::repository::{CheckpointRepository, RepoResult};
use smallebot_core::rules::retention::KeptContent;

/// A kept content and when it was kept.
type Kept = (Vec<u8>, chrono::DateTime<chrono::Utc>);

/// Contents by digest; how many prunes ran.
#[derive(Default)]
struct Contents {
    kept: Mutex<BTreeMap<String, Kept>>,
    prunes: Mutex<u32>,
}

#[async_trait]
impl CheckpointRepository for Contents {
    async fn record_file_changes(
        &self,
        _: ConversationId,
        _: TurnId,
        _: &[TurnFileChange],
    ) -> RepoResult<()> {
        Ok(())
    }
    async fn file_changes(&self, _: ConversationId) -> RepoResult<Vec<TurnFileChange>> {
        Ok(Vec::new())
    }
    async fn has_checkpoint_content(&self, sha256: &str) -> RepoResult<bool> {
        Ok(self.kept.lock().unwrap().contains_key(sha256))
    }
    async fn put_checkpoint_content(&self, sha256: &str, content: &[u8]) -> RepoResult<()> {
        let kept = (content.to_vec(), chrono::Utc::now());
        self.kept.lock().unwrap().insert(sha256.to_owned(), kept);
        Ok(())
    }
    async fn checkpoint_content(&self, sha256: &str) -> RepoResult<Option<Vec<u8>>> {
        Ok(self
            .kept
            .lock()
            .unwrap()
            .get(sha256)
            .map(|(b, _)| b.clone()))
    }
    async fn kept_checkpoint_contents(&self) -> RepoResult<Vec<KeptContent>> {
        let kept = self.kept.lock().unwrap();
        Ok(kept
            .iter()
            .map(|(sha256, (bytes, at))| KeptContent {
                sha256: sha256.clone(),
                size: bytes.len() as u64,
                last_used: *at,
            })
            .collect())
    }
    async fn prune_checkpoint_contents(&self, sha256s: &[String], _: &str) -> RepoResult<()> {
        let mut kept = self.kept.lock().unwrap();
        for sha256 in sha256s {
            kept.remove(sha256);
        }
        *self.prunes.lock().unwrap() += 1;
        Ok(())
    }
}

/// Nothing at all is kept: every content is beyond the total.
const KEEP_NOTHING: Retention = Retention {
    max_age_days: 30,
    max_total_bytes: 0,
};

async fn a_turn_that_writes(
    ws: &std::path::Path,
    every: Duration,
) -> (Arc<Contents>, TurnCheckpoints) {
    let store = Arc::new(Contents::default());
    let turns = TurnCheckpoints::new(ws.to_path_buf(), Limits::default(), Arc::clone(&store) as _)
        .with_retention(KEEP_NOTHING, every);
    turns.before_calls().await.unwrap();
    std::fs::write(ws.join("new.txt"), "new\n").unwrap();
    let changes = turns.after_calls(TurnId::new()).await.unwrap();
    assert_eq!(changes.len(), 1);
    (store, turns)
}

#[tokio::test(flavor = "multi_thread")]
async fn a_due_prune_runs_after_a_turn_and_the_next_comparison_keeps_the_files_again() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.txt"), "old\n").unwrap();
    let (store, turns) = a_turn_that_writes(dir.path(), Duration::ZERO).await;
    assert_eq!(*store.prunes.lock().unwrap(), 1);
    assert!(store.kept.lock().unwrap().is_empty(), "nothing may be kept");

    // The next comparison indexes afresh: both files' contents are kept again, and
    // what had not changed is no change.
    turns.before_calls().await.unwrap();
    assert_eq!(store.kept.lock().unwrap().len(), 2);
    let changes = turns.after_calls(TurnId::new()).await.unwrap();
    assert!(changes.is_empty(), "{changes:?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn no_prune_before_the_interval_has_passed() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("old.txt"), "old\n").unwrap();
    let (store, _turns) = a_turn_that_writes(dir.path(), Duration::from_secs(3600)).await;
    assert_eq!(*store.prunes.lock().unwrap(), 0);
    assert_eq!(store.kept.lock().unwrap().len(), 2);
}
