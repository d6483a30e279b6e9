//! Contract: checkpoint retention — every kept content is listed with its size and
//! when it was last needed (the newest of when it was kept and when a change naming
//! it was stored); pruning marks the changes whose content before went and removes
//! the contents; a name that is not a digest is refused. Runs on SQLite and
//! PostgreSQL.

use smallebot_core::RepositoryError;
use smallebot_core::entities::TurnFileChange;
use smallebot_core::rules::checkpoint::{ChangeKind, FileChange, FileState};
use smallebot_core::rules::retention::contents_to_prune;
use smallebot_core::time::parse_timestamp;

use crate::backends::{self, OrFail};

fn digest(tag: char) -> String {
    tag.to_string().repeat(64)
}

fn change(path: &str, before: Option<(char, u64)>, after: Option<(char, u64)>) -> FileChange {
    let state = |(tag, size): (char, u64)| FileState {
        sha256: digest(tag),
        size,
    };
    FileChange {
        path: path.to_owned(),
        from: None,
        kind: match (before, after) {
            (None, _) => ChangeKind::Created,
            (_, None) => ChangeKind::Deleted,
            _ => ChangeKind::Modified,
        },
        before: before.map(state),
        after: after.map(state),
    }
}

#[tokio::test]
async fn old_contents_are_pruned_and_their_changes_marked_shared_ones_kept() {
    for b in backends::each("checkpoint_retention").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let old_turn = b.user_turn(&c, "old").await;
        let young_turn = b.user_turn(&c, "young").await;
        // a: only the old turn's content before; b: the old turn's after and the young
        // turn's; c: the young turn's; d: no change names it.
        for (tag, bytes) in [
            ('a', "old!"),
            ('b', "shared"),
            ('c', "young"),
            ('d', "loose"),
        ] {
            b.store
                .put_checkpoint_content(&digest(tag), bytes.as_bytes())
                .await
                .or_fail(name);
        }
        let old = [TurnFileChange::captured(
            old_turn.id,
            change("x.txt", Some(('a', 4)), Some(('b', 6))),
        )];
        let young = [
            TurnFileChange::captured(young_turn.id, change("y.txt", None, Some(('b', 6)))),
            TurnFileChange::captured(young_turn.id, change("z.txt", None, Some(('c', 5)))),
        ];
        b.store
            .record_file_changes(c.id, old_turn.id, &old)
            .await
            .or_fail(name);
        b.store
            .record_file_changes(c.id, young_turn.id, &young)
            .await
            .or_fail(name);
        // The young turn's changes are from far ahead (every content was kept today).
        b.execute(
            "UPDATE turn_file_changes SET created_at = '2099-01-01T00:00:00.000Z' \
             WHERE path IN ('y.txt', 'z.txt')",
        )
        .await;
        let ahead = parse_timestamp("2099-01-01T00:00:00.000Z").unwrap();

        let mut kept = b.store.kept_checkpoint_contents().await.or_fail(name);
        kept.sort_by(|x, y| x.sha256.cmp(&y.sha256));
        let sizes: Vec<(String, u64)> = kept.iter().map(|k| (k.sha256.clone(), k.size)).collect();
        let want: Vec<(String, u64)> = [('a', 4), ('b', 6), ('c', 5), ('d', 5)]
            .into_iter()
            .map(|(tag, size)| (digest(tag), size))
            .collect();
        assert_eq!(sizes, want, "{name}");
        assert_eq!(kept[1].last_used, ahead, "{name}: named by a young change");
        assert_eq!(kept[2].last_used, ahead, "{name}");
        assert!(
            kept[0].last_used < ahead && kept[3].last_used < ahead,
            "{name}"
        );

        // Two weeks after the young turn, a 30-day retention prunes a and d only.
        let later = ahead + chrono::TimeDelta::days(14);
        let pruned: Vec<String> = contents_to_prune(&kept, later, 30, u64::MAX)
            .into_iter()
            .map(|k| k.sha256)
            .collect();
        let mut sorted = pruned.clone();
        sorted.sort();
        assert_eq!(sorted, vec![digest('a'), digest('d')], "{name}");
        b.store
            .prune_checkpoint_contents(&pruned, "pruned by the test")
            .await
            .or_fail(name);
        for (tag, there) in [('a', false), ('b', true), ('c', true), ('d', false)] {
            assert_eq!(
                b.store
                    .has_checkpoint_content(&digest(tag))
                    .await
                    .or_fail(name),
                there,
                "{name}: {tag}"
            );
        }
        let left = b.store.kept_checkpoint_contents().await.or_fail(name);
        assert_eq!(left.len(), 2, "{name}");

        // The old change (its content before went) is marked; the young ones are not.
        let marks: Vec<(String, Option<String>)> = b
            .store
            .file_changes(c.id)
            .await
            .or_fail(name)
            .into_iter()
            .map(|f| (f.change.path, f.not_captured))
            .collect();
        assert_eq!(
            marks,
            vec![
                ("x.txt".to_owned(), Some("pruned by the test".to_owned())),
                ("y.txt".to_owned(), None),
                ("z.txt".to_owned(), None),
            ],
            "{name}"
        );

        let refused = b
            .store
            .prune_checkpoint_contents(&["../../etc/passwd".to_owned()], "x")
            .await
            .unwrap_err();
        assert!(
            matches!(refused, RepositoryError::Conflict(_)),
            "{name}: {refused}"
        );
    }
}
