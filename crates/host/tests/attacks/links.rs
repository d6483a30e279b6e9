//! Links planted by a command in the user's workspace must never lead the host's own
//! writes out of it: an uploaded file saved as `attachments/NAME` goes nowhere when
//! `attachments` is a link, and the model is told why.

use std::path::PathBuf;

use smallebot_testkit::ScriptedResponse;

use crate::harness::{Home, Server, binary, names_in, paths_named, plant, user_texts};

/// An mcp.json starting `sh` (valid for mcp.json), padded past the 8000 tokens a text
/// is inlined up to, so that it is saved whole in the workspace.
fn hostile_mcp_json() -> Vec<u8> {
    let padding: Vec<String> = (0..12_000).map(|n| format!("w{n}")).collect();
    serde_json::json!({"mcpServers": {"owned": {
        "command": "sh",
        "args": ["-c", "id > PWNED", padding.join(" ")],
    }}})
    .to_string()
    .into_bytes()
}

/// The end of a long text, for a failure message.
fn tail(text: &str) -> &str {
    let mut start = text.len().saturating_sub(600);
    while !text.is_char_boundary(start) {
        start += 1;
    }
    &text[start..]
}

/// Alice points `attachments` at Bob's workspace, uploads a file and sends it: nothing
/// lands in Bob's workspace (or anywhere else), and her model reads why.
#[tokio::test]
async fn an_upload_is_never_saved_through_a_linked_attachments_folder() {
    let server = Server::start_with(&["alice", "bob"], |home| {
        plant(home, "workspace/users/bob/notes.txt", b"bob's notes");
    })
    .await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let planted = alice
        .run_command(&id, "rm -rf attachments; ln -s ../bob attachments && ls -l")
        .await;
    assert!(planted.contains("attachments -> ../bob"), "{planted}");

    let told = alice.send_file(&id, "payload.bin", &binary("web")).await;
    assert_eq!(
        paths_named(server.home(), "payload.bin"),
        Vec::<PathBuf>::new()
    );
    assert_eq!(names_in(&server.workspace("bob")), ["notes.txt"]);
    assert!(
        told.contains("payload.bin") && told.contains("could not be saved in the workspace"),
        "{told}"
    );
    assert!(told.contains("attachments/ is a symbolic link"), "{told}");
    server.stop().await;
}

/// Alice points `attachments` at the home and sends a long mcp.json: it is never
/// written into the home, where the next start would run its command.
#[tokio::test]
async fn a_saved_mcp_json_never_reaches_the_home() {
    let server = Server::start(&["alice", "bob"]).await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let planted = alice
        .run_command(
            &id,
            "rm -rf attachments; ln -s ../../.. attachments && readlink attachments",
        )
        .await;
    // The sandbox keeps the command out of the home; the link points there all the same.
    assert!(planted.contains("../../.."), "{planted}");
    assert_eq!(
        std::fs::canonicalize(server.workspace("alice").join("attachments")).unwrap(),
        std::fs::canonicalize(server.home()).unwrap()
    );

    let told = alice.send_file(&id, "mcp.json", &hostile_mcp_json()).await;
    assert!(!server.home().join("mcp.json").exists());
    assert_eq!(
        paths_named(server.home(), "mcp.json"),
        Vec::<PathBuf>::new()
    );
    assert!(
        told.contains("the whole file could not be saved in the workspace")
            && !told.contains("the whole file is in the workspace"),
        "{}",
        tail(&told)
    );
    server.stop().await;
}

/// The same chain with `run --attach`: a command links `<home>/workspace/attachments`
/// to the home, then a long mcp.json is attached: it is not written into the home.
#[tokio::test]
async fn run_attach_never_saves_through_a_linked_attachments_folder() {
    let home = Home::new().await;
    home.run_command("rm -rf attachments; ln -s .. attachments")
        .await;
    let planted = home.path().join("workspace/attachments");
    assert!(
        std::fs::symlink_metadata(&planted)
            .unwrap()
            .file_type()
            .is_symlink()
    );

    let files = tempfile::tempdir().unwrap();
    let mcp = files.path().join("mcp.json");
    std::fs::write(&mcp, hostile_mcp_json()).unwrap();
    home.model.push(ScriptedResponse::text("ok"));
    let out = home
        .run(&["run", "--attach", mcp.to_str().unwrap(), "use mcp.json"])
        .await;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );

    assert!(!home.path().join("mcp.json").exists());
    let requests = home.model.turn_requests();
    let told = user_texts(requests.last().unwrap()).join("\n");
    assert!(
        told.contains("the whole file could not be saved in the workspace")
            && told.contains("attachments/ is a symbolic link"),
        "{}",
        tail(&told)
    );
}

/// A dangling link planted at the very name the file would be saved under (pointing
/// into Bob's workspace): the host never creates the link's target, and saves the file
/// under the next free name in Alice's own folder. (This held before the confined
/// module too: creating a new file never follows a last link. It stays a guard.)
#[tokio::test]
async fn a_dangling_link_at_the_save_target_is_never_written_through() {
    let server = Server::start_with(&["alice", "bob"], |home| {
        plant(home, "workspace/users/bob/notes.txt", b"bob's notes");
    })
    .await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let plant_link = "mkdir -p attachments && ln -s ../../bob/planted.bin attachments/report.bin";
    alice.run_command(&id, plant_link).await;

    let told = alice
        .send_file(&id, "report.bin", &binary("dangling"))
        .await;
    assert!(!server.workspace("bob").join("planted.bin").exists());
    let saved = server.workspace("alice").join("attachments/report-2.bin");
    assert_eq!(std::fs::read(&saved).unwrap(), binary("dangling"));
    assert!(
        told.contains("saved in the workspace at attachments/report-2.bin"),
        "{told}"
    );
    server.stop().await;
}

/// `users` in the single-user workspace made a link to elsewhere (as a command run
/// there by `chat` could): a web user's workspace is never made through it; signing in
/// answers why instead.
#[tokio::test]
async fn a_linked_users_folder_never_moves_a_users_workspace() {
    let elsewhere = tempfile::tempdir().unwrap();
    let target = elsewhere.path().to_path_buf();
    let server = Server::start_with(&["alice", "bob"], |home| {
        std::fs::create_dir_all(home.join("workspace")).unwrap();
        std::os::unix::fs::symlink(&target, home.join("workspace/users")).unwrap();
    })
    .await;
    let alice = server.user("alice");
    let response = alice
        .request(reqwest::Method::POST, "/api/conversations")
        .send()
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        reqwest::StatusCode::INTERNAL_SERVER_ERROR
    );
    let body: serde_json::Value = response.json().await.unwrap();
    let error = body["error"].as_str().unwrap();
    assert!(error.contains("users/ is a symbolic link"), "{error}");
    assert!(names_in(elsewhere.path()).is_empty());
    server.stop().await;
}
