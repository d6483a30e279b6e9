//! Saving attachments into a workspace a command may have rigged: never through a
//! link, never comparing through a link or a hard link, a missing copy written again
//! once at most.
#![allow(clippy::unwrap_used)]

use std::os::unix::fs::symlink;
use std::path::Path;

use smallebot_core::entities::{Attachment, AttachmentKind};
use smallebot_core::ids::{AttachmentId, ConversationId};

use super::AttachmentWriter;

fn attachment(name: &str) -> Attachment {
    Attachment {
        id: AttachmentId::new(),
        conversation_id: ConversationId::new(),
        message_id: None,
        name: name.to_owned(),
        media_type: "application/octet-stream".to_owned(),
        kind: AttachmentKind::File,
        size: 4,
        sha256: String::new(),
        image_size: None,
        created_at: chrono::Utc::now(),
    }
}

/// A home with `ws/` (the workspace) and `outside/`.
fn home() -> (tempfile::TempDir, AttachmentWriter) {
    let dir = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(dir.path().join("ws")).unwrap();
    std::fs::create_dir_all(dir.path().join("outside")).unwrap();
    let writer = AttachmentWriter::new(Some(dir.path().join("ws")), 100);
    (dir, writer)
}

fn empty(dir: &Path) -> bool {
    std::fs::read_dir(dir).unwrap().next().is_none()
}

#[test]
fn a_linked_attachments_folder_gets_nothing_and_the_reason_is_given() {
    let (dir, writer) = home();
    symlink(
        dir.path().join("outside"),
        dir.path().join("ws/attachments"),
    )
    .unwrap();
    let why = writer.save(&attachment("x.bin"), b"data").unwrap_err();
    assert!(why.starts_with("attachments/ is a symbolic link"), "{why}");
    assert!(empty(&dir.path().join("outside")));
    std::fs::remove_file(dir.path().join("ws/attachments")).unwrap();
    std::fs::write(dir.path().join("ws/attachments"), "a file").unwrap();
    let why = writer.save(&attachment("x.bin"), b"data").unwrap_err();
    assert!(why.contains("'attachments' is not a folder"), "{why}");
}

#[test]
fn a_link_or_hard_link_at_a_name_is_never_compared_nor_replaced() {
    let (dir, writer) = home();
    let ws = dir.path().join("ws");
    std::fs::create_dir(ws.join("attachments")).unwrap();
    std::fs::write(dir.path().join("outside/secret"), b"data").unwrap();
    symlink(
        dir.path().join("outside/secret"),
        ws.join("attachments/a.bin"),
    )
    .unwrap();
    assert_eq!(
        writer.save(&attachment("a.bin"), b"data").unwrap(),
        "attachments/a-2.bin"
    );
    std::fs::write(ws.join("mine"), b"same").unwrap();
    std::fs::hard_link(ws.join("mine"), ws.join("attachments/b.bin")).unwrap();
    assert_eq!(
        writer.save(&attachment("b.bin"), b"same").unwrap(),
        "attachments/b-2.bin"
    );
    // A plain file of the same content is taken as is.
    std::fs::write(ws.join("attachments/c.bin"), b"same").unwrap();
    assert_eq!(
        writer.save(&attachment("c.bin"), b"same").unwrap(),
        "attachments/c.bin"
    );
    assert_eq!(
        std::fs::read(dir.path().join("outside/secret")).unwrap(),
        b"data"
    );
}

#[test]
fn a_missing_copy_is_written_again_once_and_never_through_a_link() {
    let (dir, writer) = home();
    let ws = dir.path().join("ws");
    let file = attachment("d.bin");
    assert_eq!(writer.save(&file, b"data").unwrap(), "attachments/d.bin");
    assert_eq!(writer.save(&file, b"data").unwrap(), "attachments/d.bin");
    // Gone, and the folder made a link meanwhile: nothing is written through it.
    std::fs::rename(ws.join("attachments"), ws.join("moved")).unwrap();
    symlink(dir.path().join("outside"), ws.join("attachments")).unwrap();
    assert!(writer.save(&file, b"data").is_err());
    assert!(empty(&dir.path().join("outside")));
    std::fs::remove_file(ws.join("attachments")).unwrap();
    // Written again once…
    assert_eq!(writer.save(&file, b"data").unwrap(), "attachments/d.bin");
    std::fs::remove_file(ws.join("attachments/d.bin")).unwrap();
    // …and no more.
    let why = writer.save(&file, b"data").unwrap_err();
    assert!(why.contains("not saved again"), "{why}");
    assert!(!ws.join("attachments/d.bin").exists());
}
