//! Links planted by a command in the user's workspace must never lead the host's own
//! writes out of it: an uploaded file saved as `attachments/NAME` goes nowhere when
//! `attachments` is a link, and the model is told why.

use smallebot_testkit::ScriptedResponse;

use crate::harness::{Server, user_texts};

/// A file the sniffer takes for neither text nor an image: saved, never inlined.
pub fn binary(tag: &str) -> Vec<u8> {
    let mut bytes = vec![0_u8, 1, 2, 3, 0xff, 0xfe, 0];
    bytes.extend_from_slice(tag.as_bytes());
    bytes
}

/// The last turn request's user messages, joined.
pub fn last_user_text(server: &Server) -> String {
    let requests = server.model.turn_requests();
    user_texts(requests.last().unwrap()).join("\n")
}

/// A dangling link planted at the very name the file would be saved under (pointing
/// into Bob's workspace): the host never creates the link's target, and saves the file
/// under the next free name in Alice's own folder.
#[tokio::test]
async fn a_dangling_link_at_the_save_target_is_never_written_through() {
    let server = Server::start_with(&["alice", "bob"], |home| {
        std::fs::create_dir_all(home.join("workspace/users/bob")).unwrap();
    })
    .await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    alice
        .run_command(
            &id,
            "mkdir -p attachments && ln -s ../../bob/planted.bin attachments/report.bin",
        )
        .await;

    let file = alice.upload(&id, "report.bin", &binary("dangling")).await;
    server.model.push(ScriptedResponse::text("ok"));
    alice.say(&id, "see report.bin", &[&file]).await;

    assert!(!server.workspace("bob").join("planted.bin").exists());
    let saved = server.workspace("alice").join("attachments/report-2.bin");
    assert_eq!(std::fs::read(&saved).unwrap(), binary("dangling"));
    let told = last_user_text(&server);
    assert!(
        told.contains("saved in the workspace at attachments/report-2.bin"),
        "{told}"
    );
    server.stop().await;
}
