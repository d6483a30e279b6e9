//! Contract: attachments — stored with their content once per digest, linked to the
//! user message that carries them in the transaction that stores it (refused ids store
//! nothing), read back with messages, kept by an edit, a regeneration and an undo,
//! deleted with their conversation (content another conversation uses stays), and found
//! by search. Runs on SQLite and PostgreSQL.

use smallebot_application::rewrite;
use smallebot_core::RepositoryError;
use smallebot_core::entities::{
    Attachment, Conversation, HistoryRow, Message, NewAttachment, Role, SearchHitKind, SearchScope,
    TurnStatus,
};
use smallebot_core::ids::{AttachmentId, ConversationId};
use smallebot_core::rules::attachment::describe;

use crate::backends::{self, Backend, Kind, OrFail, owner, query};

/// A tiny PNG header — IHDR, an empty IDAT and IEND with their CRCs (enough for
/// `describe` to call it an image).
const PNG: &[u8] =
    b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR\0\0\0\x02\0\0\0\x03\x08\x02\0\0\0\x36\x88\x49\xd6\
    \0\0\0\0IDAT\x35\xaf\x06\x1e\0\0\0\0IEND\xae\x42\x60\x82";

fn upload(conversation_id: ConversationId, name: &str, content: &[u8]) -> NewAttachment {
    NewAttachment {
        conversation_id,
        facts: describe(name, content),
        content: content.to_vec(),
    }
}

impl Backend {
    async fn put(&self, c: &Conversation, name: &str, content: &[u8]) -> Attachment {
        self.store
            .put_attachment(&upload(c.id, name, content))
            .await
            .or_fail(self.name)
    }

    /// Starts (and finishes) a turn whose message carries `ids`.
    async fn send(&self, c: &Conversation, text: &str, ids: &[AttachmentId]) -> Message {
        let (turn, message) = self
            .store
            .start_turn_with_message(c.id, false, text, ids, 3, &owner())
            .await
            .or_fail(self.name);
        self.store
            .finish_turn(turn.id, TurnStatus::Completed, None)
            .await
            .or_fail(self.name);
        message
    }

    /// How many contents are stored: rows on PostgreSQL, files on SQLite.
    async fn contents(&self) -> usize {
        match &self.kind {
            Kind::Sqlite(store) => {
                let root = store.path().parent().unwrap().join("attachments");
                let Ok(dirs) = std::fs::read_dir(root) else {
                    return 0;
                };
                dirs.flatten()
                    .map(|d| std::fs::read_dir(d.path()).unwrap().count())
                    .sum()
            }
            Kind::Postgres(store, _) => {
                let n: i64 = sqlx::query_scalar("SELECT COUNT(*) FROM attachment_contents")
                    .fetch_one(store.pool())
                    .await
                    .unwrap();
                usize::try_from(n).unwrap()
            }
        }
    }
}

fn user_messages(rows: &[HistoryRow]) -> Vec<&Message> {
    rows.iter()
        .filter_map(|r| match r {
            HistoryRow::Message(m) if m.role == Role::User && m.replaced_by.is_none() => Some(m),
            _ => None,
        })
        .collect()
}

fn names(attachments: &[Attachment]) -> Vec<&str> {
    attachments.iter().map(|a| a.name.as_str()).collect()
}

#[tokio::test]
async fn an_upload_round_trips_and_the_same_content_is_stored_once() {
    for b in backends::each("attachment_round_trip").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let image = b.put(&c, "shot.png", PNG).await;
        assert_eq!(image.media_type, "image/png", "{name}");
        let size = image.image_size.map(|s| (s.width, s.height));
        assert_eq!(size, Some((2, 3)), "{name}: the image's size");
        assert_eq!(image.message_id, None, "{name}: not sent yet");
        let read = b.store.get_attachment(image.id).await.or_fail(name);
        assert_eq!(read.as_ref(), Some(&image), "{name}: read back as stored");
        let content = b.store.attachment_content(image.id).await.or_fail(name);
        assert_eq!(content.as_deref(), Some(PNG), "{name}: the content");

        let again = b.put(&c, "copy.png", PNG).await;
        let other = b.put(&c, "notes.txt", b"plain words").await;
        assert_eq!(
            b.contents().await,
            2,
            "{name}: the same bytes are stored once"
        );
        let listed = b.store.conversation_attachments(c.id).await.or_fail(name);
        assert_eq!(
            listed.iter().map(|a| a.id).collect::<Vec<_>>(),
            [image.id, again.id, other.id],
            "{name}: in upload order"
        );
        let missing = b
            .store
            .get_attachment(AttachmentId::new())
            .await
            .or_fail(name);
        assert!(missing.is_none(), "{name}");

        let nowhere = b
            .store
            .put_attachment(&upload(ConversationId::new(), "x.txt", b"lost"))
            .await;
        assert!(
            matches!(nowhere, Err(RepositoryError::NotFound { .. })),
            "{name}: an unknown conversation is refused: {nowhere:?}"
        );
        assert_eq!(b.contents().await, 2, "{name}: nothing stored for it");
    }
}

#[tokio::test]
async fn attachments_are_linked_at_start_and_refused_ids_store_nothing() {
    for b in backends::each("attachment_linking").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let other = b.conversation("ann").await;
        let notes = b.put(&c, "notes.txt", b"some notes").await;
        let elsewhere = b.put(&other, "far.txt", b"far away").await;

        for (ids, what) in [
            (vec![notes.id, AttachmentId::new()], "an unknown id"),
            (vec![notes.id, elsewhere.id], "another conversation's"),
        ] {
            let refused = b
                .store
                .start_turn_with_message(c.id, false, "look", &ids, 3, &owner())
                .await;
            assert!(refused.is_err(), "{name}: {what} is refused");
            assert!(
                b.rows(&c).await.is_empty(),
                "{name}: {what}: nothing stored"
            );
            let kept = b
                .store
                .get_attachment(notes.id)
                .await
                .or_fail(name)
                .unwrap();
            assert_eq!(kept.message_id, None, "{name}: {what}: nothing linked");
        }

        let message = b.send(&c, "look at this", &[notes.id]).await;
        assert_eq!(names(&message.attachments), ["notes.txt"], "{name}");
        assert_eq!(
            message.attachments[0].message_id,
            Some(message.id),
            "{name}"
        );

        let twice = b
            .store
            .start_turn_with_message(c.id, false, "again", &[notes.id], 3, &owner())
            .await;
        assert!(
            matches!(twice, Err(RepositoryError::Conflict(_))),
            "{name}: an attachment already sent is refused: {twice:?}"
        );
        assert_eq!(user_messages(&b.rows(&c).await).len(), 1, "{name}");

        // Every read of messages carries them.
        let rows = b.rows(&c).await;
        assert_eq!(
            names(&user_messages(&rows)[0].attachments),
            ["notes.txt"],
            "{name}"
        );
        let context = b.store.context_rows_after(c.id, 0).await.or_fail(name);
        assert_eq!(
            names(&user_messages(&context)[0].attachments),
            ["notes.txt"],
            "{name}"
        );
        let around = b
            .store
            .rows_around(c.id, message.seq, 2, 2)
            .await
            .or_fail(name);
        assert_eq!(
            names(&user_messages(&around)[0].attachments),
            ["notes.txt"],
            "{name}"
        );
        let read = b.store.get_message(message.id).await.or_fail(name).unwrap();
        assert_eq!(names(&read.attachments), ["notes.txt"], "{name}");
        let contents = b
            .store
            .turn_contents(message.turn_id)
            .await
            .or_fail(name)
            .unwrap();
        assert_eq!(
            names(&contents.messages[0].attachments),
            ["notes.txt"],
            "{name}"
        );
        let plain = b.send(&c, "no files", &[]).await;
        assert!(plain.attachments.is_empty(), "{name}");
    }
}

#[tokio::test]
async fn an_edit_keeps_the_attachments_on_the_new_version() {
    for b in backends::each("attachment_edit").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let shot = b.put(&c, "shot.png", PNG).await;
        let first = b.send(&c, "what is this", &[shot.id]).await;
        let later = b.put(&c, "later.txt", b"only in a later turn").await;
        b.send(&c, "and this", &[later.id]).await;

        let (_, edited) =
            rewrite::edit_user_message(&*b.store, first.id, "what is this image", 4, &owner())
                .await
                .or_fail(name);
        assert_eq!(names(&edited.attachments), ["shot.png"], "{name}: kept");
        let rows = b.rows(&c).await;
        let current = user_messages(&rows);
        assert_eq!(current.len(), 1, "{name}: the later turn is discarded");
        assert_eq!(names(&current[0].attachments), ["shot.png"], "{name}");
        let gone = b.store.get_attachment(later.id).await.or_fail(name);
        assert!(
            gone.is_none(),
            "{name}: the discarded turn's attachment is gone"
        );
        assert_eq!(b.contents().await, 1, "{name}: and its content");
    }
}

#[tokio::test]
async fn regenerate_and_undo_keep_the_attachments() {
    for b in backends::each("attachment_regenerate").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let shot = b.put(&c, "shot.png", PNG).await;
        let message = b.send(&c, "what is this", &[shot.id]).await;
        let (turn, kept) = rewrite::regenerate_turn(&*b.store, message.turn_id, &owner())
            .await
            .or_fail(name);
        assert_eq!(kept.id, message.id, "{name}: the same message runs again");
        assert_eq!(
            names(&kept.attachments),
            ["shot.png"],
            "{name}: regenerate keeps them"
        );
        b.store
            .finish_turn(turn.id, TurnStatus::Completed, None)
            .await
            .or_fail(name);
        rewrite::undo_last_turn(&*b.store, c.id).await.or_fail(name);
        let read = b.store.get_message(message.id).await.or_fail(name).unwrap();
        assert_eq!(
            names(&read.attachments),
            ["shot.png"],
            "{name}: undo keeps them"
        );
        assert_eq!(b.contents().await, 1, "{name}");
    }
}

#[tokio::test]
async fn deleting_a_conversation_removes_the_content_no_other_uses() {
    for b in backends::each("attachment_delete").await {
        let name = b.name;
        let doomed = b.conversation("ann").await;
        let kept = b.conversation("ann").await;
        let shared = b.put(&doomed, "shared.txt", b"shared bytes").await;
        let own = b.put(&doomed, "own.txt", b"only here").await;
        b.send(&doomed, "files", &[shared.id, own.id]).await;
        let copy = b.put(&kept, "copy.txt", b"shared bytes").await;
        assert_eq!(b.contents().await, 2, "{name}");

        assert!(b.store.delete_conversation(doomed.id).await.or_fail(name));
        assert!(
            b.store.get_attachment(own.id).await.or_fail(name).is_none(),
            "{name}"
        );
        assert_eq!(
            b.contents().await,
            1,
            "{name}: the unshared content is gone"
        );
        let content = b.store.attachment_content(copy.id).await.or_fail(name);
        assert_eq!(
            content.as_deref(),
            Some(&b"shared bytes"[..]),
            "{name}: shared kept"
        );
    }
}

#[tokio::test]
async fn search_finds_a_text_attachments_contents_and_a_name() {
    for b in backends::each("attachment_search").await {
        let name = b.name;
        let c = b.conversation("ann").await;
        let log = b
            .put(&c, "server.log", b"panic: the wombat overflowed")
            .await;
        let shot = b.put(&c, "platypus.png", PNG).await;
        let pending = b.put(&c, "pending.txt", b"an unsent quokka").await;
        let scope = || SearchScope::User("ann".into());
        let unsent = b
            .store
            .search(&query("quokka", scope()))
            .await
            .or_fail(name);
        assert!(
            unsent.is_empty(),
            "{name}: not searchable before it is sent"
        );

        let message = b.send(&c, "see the files", &[log.id, shot.id]).await;
        for (word, file) in [("wombat", "server.log"), ("platypus", "platypus.png")] {
            let hits = b.store.search(&query(word, scope())).await.or_fail(name);
            assert_eq!(hits.len(), 1, "{name}: {word}: {hits:?}");
            let hit = &hits[0];
            assert_eq!(hit.kind, SearchHitKind::Attachment, "{name}: {word}");
            assert_eq!(hit.conversation_id, c.id, "{name}: {word}");
            assert_eq!(hit.seq, message.seq, "{name}: {word}: at its message");
            assert!(hit.text.starts_with(file), "{name}: {word}: {}", hit.text);
        }
        assert_eq!(pending.message_id, None, "{name}");
        let hits = b
            .store
            .search(&query("quokka", scope()))
            .await
            .or_fail(name);
        assert!(hits.is_empty(), "{name}: still not sent");
    }
}
