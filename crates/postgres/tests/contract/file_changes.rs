//! Contract: checkpoints — a turn's file changes are listed turn by turn in the order
//! they were stored, refused for a turn of another conversation, gone with their
//! conversation; contents are kept once per digest and refused under a name that is
//! not one. Runs on SQLite and PostgreSQL.

use smallebot_core::RepositoryError;
use smallebot_core::entities::TurnFileChange;
use smallebot_core::rules::checkpoint::{ChangeKind, FileChange, FileState};

use crate::backends::{self, OrFail};

fn state(tag: char, size: u64) -> Option<FileState> {
    Some(FileState {
        sha256: tag.to_string().repeat(64),
        size,
    })
}

fn change(
    path: &str,
    from: Option<&str>,
    kind: ChangeKind,
    before: Option<FileState>,
    after: Option<FileState>,
) -> FileChange {
    FileChange {
        path: path.to_owned(),
        from: from.map(str::to_owned),
        kind,
        before,
        after,
    }
}

#[tokio::test]
async fn file_changes_are_listed_by_turn_in_the_order_stored() {
    for b in backends::each("file_changes_listed_by_turn").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let first = b.user_turn(&c, "one").await;
        let second = b.user_turn(&c, "two").await;
        let mut rewound = TurnFileChange::captured(
            second.id,
            change(
                "a.txt",
                None,
                ChangeKind::Modified,
                state('b', 2),
                state('a', 1),
            ),
        );
        rewound.rewind = Some("rewind-1".to_owned());
        let later = vec![
            TurnFileChange::captured(
                second.id,
                change(
                    "a.txt",
                    None,
                    ChangeKind::Modified,
                    state('a', 1),
                    state('b', 2),
                ),
            ),
            rewound,
        ];
        let earlier = vec![
            TurnFileChange::captured(
                first.id,
                change("a.txt", None, ChangeKind::Created, None, state('a', 1)),
            ),
            TurnFileChange::captured(
                first.id,
                change(
                    "e.txt",
                    Some("d.txt"),
                    ChangeKind::Renamed,
                    state('d', 3),
                    state('d', 3),
                ),
            ),
            TurnFileChange::not_captured(
                first.id,
                "big.bin",
                ChangeKind::Created,
                "20 bytes, over the per-file limit of 10 bytes",
            ),
        ];
        // The second turn's changes stored first: still listed after the first turn's.
        b.store
            .record_file_changes(c.id, second.id, &later)
            .await
            .or_fail(name);
        b.store
            .record_file_changes(c.id, first.id, &earlier[..2])
            .await
            .or_fail(name);
        b.store
            .record_file_changes(c.id, first.id, &earlier[2..])
            .await
            .or_fail(name);
        let mut want = earlier.clone();
        want.extend(later);
        assert_eq!(
            b.store.file_changes(c.id).await.or_fail(name),
            want,
            "{name}"
        );

        let other = b.conversation("ann").await;
        let refused = b
            .store
            .record_file_changes(other.id, first.id, &earlier)
            .await
            .unwrap_err();
        assert!(
            matches!(refused, RepositoryError::NotFound { .. }),
            "{name}: {refused}"
        );
        assert!(
            b.store
                .file_changes(other.id)
                .await
                .or_fail(name)
                .is_empty()
        );

        assert!(b.store.delete_conversation(c.id).await.or_fail(name));
        assert!(
            b.store.file_changes(c.id).await.or_fail(name).is_empty(),
            "{name}"
        );
    }
}

#[tokio::test]
async fn checkpoint_contents_are_kept_once_per_digest() {
    for b in backends::each("checkpoint_contents_kept").await {
        let name = b.name;
        let digest = "ab".repeat(32);
        assert!(!b.store.has_checkpoint_content(&digest).await.or_fail(name));
        assert_eq!(
            b.store.checkpoint_content(&digest).await.or_fail(name),
            None
        );
        b.store
            .put_checkpoint_content(&digest, b"hello")
            .await
            .or_fail(name);
        // Kept already: not an error, and the first content stays.
        b.store
            .put_checkpoint_content(&digest, b"hello")
            .await
            .or_fail(name);
        assert!(b.store.has_checkpoint_content(&digest).await.or_fail(name));
        assert_eq!(
            b.store.checkpoint_content(&digest).await.or_fail(name),
            Some(b"hello".to_vec()),
            "{name}"
        );
        for bad in ["../../etc/passwd", "AB", &"zz".repeat(32)] {
            let err = b.store.put_checkpoint_content(bad, b"x").await.unwrap_err();
            assert!(
                matches!(err, RepositoryError::Conflict(_)),
                "{name} {bad}: {err}"
            );
            assert!(
                b.store.checkpoint_content(bad).await.is_err(),
                "{name} {bad}"
            );
        }
    }
}
