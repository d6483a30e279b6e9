//! A race between the host's check and its use: one of Alice's commands swaps her
//! `attachments` folder for a link to Bob's workspace and back, over and over, while
//! her other conversation sends uploads. Whatever the timing, no file lands in Bob's
//! workspace.

use std::time::{Duration, Instant};

use smallebot_testkit::{RecordedRequest, ScriptedResponse};

use crate::harness::{Server, binary, names_in, plant, tool_results};

/// The swapping loop, for about `seconds`.
fn swapper(seconds: u64) -> String {
    format!(
        "mkdir -p attachments; end=$(( $(date +%s) + {seconds} )); \
         while [ $(date +%s) -lt $end ]; do \
           mv attachments held; ln -s ../bob attachments; rm attachments; mv held attachments; \
         done; echo swapped"
    )
}

#[tokio::test]
async fn a_folder_swapped_for_a_link_during_saves_never_leads_a_file_out() {
    let server = Server::start_with(&["alice", "bob"], |home| {
        plant(home, "workspace/users/bob/notes.txt", b"bob's notes");
    })
    .await;
    // The uploads' turns answer from a route of their own; the swapping turn takes
    // the queue (its call, then its answer once the loop is over).
    server.model.answer_when(
        |r: &RecordedRequest| {
            r.last_user_text()
                .is_some_and(|t| t.starts_with("race upload"))
        },
        |_| ScriptedResponse::text("ok"),
    );
    let alice = server.user("alice");
    let swapping = alice.create_conversation().await;
    let uploading = alice.create_conversation().await;
    server.model.push_all([
        ScriptedResponse::tool_calls([smallebot_testkit::ToolCallSpec::new(
            "call_swap",
            "ExecuteCommand",
            serde_json::json!({ "command": swapper(10) }).to_string(),
        )]),
        ScriptedResponse::text("done"),
    ]);
    let swap_turn = alice.start_turn(&swapping, "swap", &[]).await;
    // Wait until the command runs.
    let deadline = Instant::now() + Duration::from_secs(30);
    while !server.workspace("alice").join("attachments").exists() {
        assert!(
            Instant::now() < deadline,
            "the swapping command never started"
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    let mut sent = 0;
    let until = Instant::now() + Duration::from_secs(8);
    while Instant::now() < until {
        let name = format!("race-{sent}.bin");
        let file = alice.upload(&uploading, &name, &binary(&name)).await;
        alice
            .say(&uploading, &format!("race upload {sent}"), &[&file])
            .await;
        sent += 1;
    }
    let swapped = alice.wait_turn_end(&swapping, &swap_turn).await;
    assert!(
        tool_results(&swapped).concat().contains("swapped"),
        "{swapped}"
    );
    assert!(sent >= 5, "only {sent} uploads were sent during the swaps");

    assert_eq!(
        names_in(&server.workspace("bob")),
        ["notes.txt"],
        "files landed in Bob's workspace"
    );
    server.stop().await;
}
