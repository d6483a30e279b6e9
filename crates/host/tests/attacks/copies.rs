//! The saved copy of an upload: written again at most once when it goes missing, and
//! the "same content is already there" check never reads through a link — so it can
//! be used neither to spray earlier uploads at a new place nor to probe files the user
//! cannot read.

use smallebot_testkit::ScriptedResponse;

use crate::harness::{Server, binary, plant};

/// Alice's model removes the saved copy after every turn: it is written again once,
/// then no more (and the model reads that it is gone), not on every request.
#[tokio::test]
async fn a_removed_saved_copy_is_written_again_at_most_once() {
    let server = Server::start(&["alice", "bob"]).await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    alice.send_file(&id, "data.bin", &binary("copy")).await;
    let saved = server.workspace("alice").join("attachments/data.bin");
    assert!(saved.is_file());

    let mut present = Vec::new();
    for _ in 0..3 {
        alice.run_command(&id, "rm -f attachments/data.bin").await;
        server.model.push(ScriptedResponse::text("ok"));
        alice.say(&id, "and now?", &[]).await;
        present.push(saved.exists());
    }
    assert_eq!(present, [true, false, false], "rewritten once, then never");
    let told = server.last_told();
    assert!(
        told.contains("data.bin") && told.contains("not saved again"),
        "{told}"
    );
    server.stop().await;
}

/// Alice links `attachments/guess.bin` to a file of Bob's she cannot read and uploads
/// her guess of its content under that name: the host never compares through the
/// link, so where the file is saved says nothing about Bob's file.
#[tokio::test]
async fn a_link_at_the_save_target_cannot_probe_another_users_file() {
    let secret = binary("bob's secret");
    let server = Server::start_with(&["alice", "bob"], |home| {
        plant(home, "workspace/users/bob/secret.bin", &secret);
    })
    .await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let plant_link = "mkdir -p attachments && ln -s ../../bob/secret.bin attachments/guess.bin";
    alice.run_command(&id, plant_link).await;

    let told = alice.send_file(&id, "guess.bin", &secret).await;
    assert!(
        told.contains("saved in the workspace at attachments/guess-2.bin"),
        "{told}"
    );
    server.stop().await;
}

/// The same through a linked folder: Alice points `attachments` at Bob's
/// `attachments` and uploads a guess under the name of a file Bob received: the
/// message never says "already there".
#[tokio::test]
async fn a_linked_folder_cannot_probe_another_users_saved_files() {
    let salary = binary("bob's salary");
    let server = Server::start_with(&["alice", "bob"], |home| {
        plant(home, "workspace/users/bob/attachments/salary.bin", &salary);
    })
    .await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let plant_link = "rm -rf attachments; ln -s ../bob/attachments attachments";
    alice.run_command(&id, plant_link).await;

    let told = alice.send_file(&id, "salary.bin", &salary).await;
    assert!(!told.contains("saved in the workspace at"), "{told}");
    assert!(told.contains("attachments/ is a symbolic link"), "{told}");
    server.stop().await;
}

/// A hard link at the save target (to another of Alice's files): a file with more
/// than one name is never taken for "the same content already there", so a hard link
/// to a file elsewhere could not be probed either.
#[tokio::test]
async fn a_hard_link_at_the_save_target_is_not_compared() {
    let server = Server::start(&["alice", "bob"]).await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let plant_link = "mkdir -p attachments && printf 'same\\000' > other.bin \
                      && ln other.bin attachments/same.bin";
    alice.run_command(&id, plant_link).await;

    let told = alice.send_file(&id, "same.bin", b"same\x00").await;
    assert!(
        told.contains("saved in the workspace at attachments/same-2.bin"),
        "{told}"
    );
    server.stop().await;
}
