//! Which workspace a rewind works in: the home's, or a web user's own folder beneath it
//! — never one reached through a link.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use smallebot_checkpoints::{CheckpointError, workspace_of};

#[test]
fn a_web_users_folder_is_used_only_when_it_is_a_folder_reached_through_no_link() {
    let home = tempfile::tempdir().unwrap();
    let ws = home.path().join("workspace");
    std::fs::create_dir_all(ws.join("users/ann")).unwrap();
    let elsewhere = tempfile::tempdir().unwrap();
    std::os::unix::fs::symlink(elsewhere.path(), ws.join("users/bob")).unwrap();

    assert_eq!(workspace_of(&ws, "tester", false).unwrap(), ws);
    assert_eq!(
        workspace_of(&ws, "ann", true).unwrap(),
        ws.join("users/ann")
    );
    for refused in ["bob", "carol"] {
        match workspace_of(&ws, refused, true) {
            Err(CheckpointError::Rewind(message)) => {
                assert!(message.contains("missing or not a folder"), "{message}");
            }
            other => panic!("{refused}: {other:?}"),
        }
    }
}
