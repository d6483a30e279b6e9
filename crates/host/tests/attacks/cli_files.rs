//! Files that are not what they claim: a PNG signature followed by an HTML page, an
//! image stating 100 000 × 100 000 pixels — uploaded over the web by a user of a
//! multi-user server, or given to `run --attach` — are refused with nothing stored or
//! sent; the files the terminal reads (`run --attach`, the chat's `/attach` and
//! `@path`) are only regular files: `/dev/zero`, `/dev/urandom`, `/dev/null`, a FIFO, a
//! socket, a directory and a 2 GB sparse file are refused by name, without reading
//! them or blocking; an id with control characters is echoed with them shown.
//!
//! Each `run` gets an address-space limit well below what reading the sparse file or
//! `/dev/zero` whole takes, and a deadline far past a normal run: a reader that takes
//! everything fails the test instead of the machine, one that blocks on a FIFO fails
//! it instead of hanging.

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use reqwest::{Method, StatusCode};
use serde_json::Value;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::AttachmentRepository;
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::ScriptedResponse;
use smallebot_testkit::files::{png_header, png_signature_then_html};
use tokio::io::AsyncWriteExt as _;

use crate::harness::{Home, Server, cli};

/// The address space a run may take, in KiB: a start-up reserves a few hundred MiB
/// (mostly untouched); a 2 GB file read whole does not fit.
const ADDRESS_SPACE_KIB: u64 = 1536 * 1024;

/// Far past the second or so any of these takes: only a blocked read reaches it.
const DEADLINE: Duration = Duration::from_secs(60);

/// `smallebot --home <home>` pointed at its model, run under `ulimit -v`.
fn limited(home: &Home) -> tokio::process::Command {
    let configured = cli::smallebot(home.path(), Some(&home.model.base_url()));
    let std = configured.as_std();
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(std.get_program())
        .args(std.get_args())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    for (key, value) in std.get_envs() {
        match value {
            Some(value) => command.env(key, value),
            None => command.env_remove(key),
        };
    }
    command
}

/// Runs `command` to its end, failing the test past [`DEADLINE`].
async fn finished(command: &mut tokio::process::Command, what: &str) -> Output {
    tokio::time::timeout(DEADLINE, command.output())
        .await
        .unwrap_or_else(|_| panic!("{what}: still running after {DEADLINE:?} (blocked?)"))
        .unwrap()
}

fn fifo(path: &Path) {
    rustix::fs::mknodat(
        rustix::fs::CWD,
        path,
        rustix::fs::FileType::Fifo,
        rustix::fs::Mode::from_raw_mode(0o600),
        0,
    )
    .unwrap();
}

/// The attachments stored in conversation `id` of `server`, read from its database.
async fn stored_attachments(server: &Server, id: &str) -> Vec<String> {
    let store = SqliteStore::open(&server.home().join("smallebot.db"))
        .await
        .unwrap();
    let id: ConversationId = id.parse().unwrap();
    let names = store
        .conversation_attachments(id)
        .await
        .unwrap()
        .into_iter()
        .map(|a| a.name)
        .collect();
    store.close().await;
    names
}

/// The `error` of a JSON error body, asserting `status`.
async fn refusal(response: reqwest::Response, status: StatusCode) -> String {
    assert_eq!(response.status(), status);
    let body: Value = response.json().await.unwrap();
    body["error"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn an_image_that_is_none_or_of_an_absurd_size_is_refused_over_the_web() {
    let server = Server::start(&["alice", "bob"]).await;
    let alice = server.user("alice");
    let id = alice.create_conversation().await;
    let page = png_signature_then_html();
    let huge = png_header(100_000, 100_000);
    let real = png_header(64, 32);

    let said = refusal(
        alice.upload_response(&id, "cat.png", &page).await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert_eq!(
        said,
        "'cat.png' starts as a PNG image but is not one: its header does not decode (CTYP \
         chunk appeared before IHDR chunk). Attach the image again from its source, or put \
         it in an archive to send its bytes as they are"
    );
    let said = refusal(
        alice.upload_response(&id, "huge.png", &huge).await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert!(
        said.starts_with("'huge.png' is a PNG image stating 100000×100000 pixels"),
        "{said}"
    );
    // One disguised part refuses the whole request: the real image with it is not kept.
    let said = refusal(
        alice
            .upload_parts(
                &id,
                &[
                    ("real.png", "image/png", &real),
                    ("cat.png", "image/png", &page),
                ],
            )
            .await,
        StatusCode::BAD_REQUEST,
    )
    .await;
    assert!(
        said.starts_with("'cat.png' starts as a PNG image"),
        "{said}"
    );
    assert!(stored_attachments(&server, &id).await.is_empty());

    // What the model is sent afterwards carries no image.
    server.model.push(ScriptedResponse::text("Nothing to see."));
    alice.say(&id, "what is in the picture?", &[]).await;
    let requests = server.model.turn_requests();
    let sent = serde_json::to_string(&requests.last().unwrap().messages()).unwrap();
    assert!(!sent.contains("image_url"), "{sent}");
    // A real image is still taken.
    alice.upload(&id, "real.png", &real).await;
    assert_eq!(stored_attachments(&server, &id).await, ["real.png"]);
    server.stop().await;
}

#[tokio::test]
async fn an_id_with_control_characters_is_echoed_with_them_shown() {
    let server = Server::start(&["alice", "bob"]).await;
    let bob = server.user("bob");
    let response = bob
        .request(Method::GET, "/api/conversations/%1B%5D0%3Bowned%07%1B%5B2J")
        .send()
        .await
        .unwrap();
    assert_eq!(
        refusal(response, StatusCode::NOT_FOUND).await,
        "conversation ^[]0;owned^G^[[2J not found"
    );
    server.stop().await;

    let home = Home::new().await;
    let hostile = "\x1b]0;owned\x07\x1b[2J\r\nerror: everything is fine";
    let shown = "^[]0;owned^G^[[2J^M^Jerror: everything is fine";
    let cases: &[(&[&str], &str)] = &[
        (&["conversations", "show", hostile], ""),
        (&["conversations", "export", hostile], ""),
        (&["conversations", "delete", hostile], ""),
        (&["compact", hostile], ""),
        (&["run", "--conversation", hostile, "hello"], " of tester"),
    ];
    for (args, whose) in cases {
        let out = home.run(args).await;
        let stderr = cli::text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{args:?}: {stderr}");
        assert!(
            stderr.ends_with(&format!(
                "error: no conversation{whose} has an id starting with '{shown}' (`smallebot \
                 conversations list` shows the ids)\n"
            )),
            "{args:?}: {stderr}"
        );
        assert!(!stderr.contains('\x1b'), "{args:?}: {stderr:?}");
    }
    assert_eq!(home.model.request_count(), 0);
}

#[tokio::test]
async fn run_attach_refuses_anything_but_a_regular_file_without_reading_it() {
    let home = Home::new().await;
    let files = tempfile::tempdir().unwrap();
    let pipe = files.path().join("pipe");
    fifo(&pipe);
    let socket = files.path().join("socket");
    let _listener = std::os::unix::net::UnixListener::bind(&socket).unwrap();
    let sparse = files.path().join("sparse.bin");
    std::fs::File::create(&sparse)
        .unwrap()
        .set_len(2 << 30)
        .unwrap();
    let shown = |path: &Path| path.display().to_string();
    let cases = [
        (
            "/dev/zero".to_owned(),
            "cannot attach /dev/zero: it is a character device, not a regular file".to_owned(),
        ),
        (
            "/dev/urandom".to_owned(),
            "cannot attach /dev/urandom: it is a character device".to_owned(),
        ),
        (
            "/dev/null".to_owned(),
            "cannot attach /dev/null: it is a character device".to_owned(),
        ),
        (
            shown(&pipe),
            format!("cannot attach {}: it is a FIFO (named pipe)", shown(&pipe)),
        ),
        (
            shown(&socket),
            format!("cannot attach {}: it is a socket", shown(&socket)),
        ),
        (
            shown(files.path()),
            format!("cannot attach {}: it is a directory", shown(files.path())),
        ),
        (
            shown(&sparse),
            "'sparse.bin' is 2 GB — over the limit of 20 MB per file (agent.json \
             attachments.maxFileBytes)"
                .to_owned(),
        ),
    ];
    for (path, expected) in cases {
        let out = finished(
            limited(&home).args(["run", "--attach", &path, "look"]),
            &path,
        )
        .await;
        let stderr = cli::text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{path}: {stderr}");
        assert!(stderr.contains(&expected), "{path}: {stderr}");
    }
    assert_eq!(home.model.request_count(), 0, "nothing sent");
    assert_eq!(
        cli::listed(home.path()).await,
        "no conversations yet\n",
        "nothing stored"
    );
}

#[tokio::test]
async fn run_attach_refuses_an_image_that_is_none_or_of_an_absurd_size() {
    let home = Home::new().await;
    let files = tempfile::tempdir().unwrap();
    let page = files.path().join("page.png");
    std::fs::write(&page, png_signature_then_html()).unwrap();
    let huge = files.path().join("huge.png");
    std::fs::write(&huge, png_header(100_000, 100_000)).unwrap();
    let cases = [
        (
            &page,
            "'page.png' starts as a PNG image but is not one: its header does not decode",
        ),
        (
            &huge,
            "'huge.png' is a PNG image stating 100000×100000 pixels: an image may have 1 to \
             16384 pixels a side and 100 megapixels in all",
        ),
    ];
    for (path, expected) in cases {
        let out = finished(
            limited(&home).env("OPENAI_SUPPORTS_IMAGES", "1").args([
                "run",
                "--attach",
                path.to_str().unwrap(),
                "look",
            ]),
            expected,
        )
        .await;
        let stderr = cli::text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
    assert_eq!(home.model.request_count(), 0, "nothing sent");
    assert_eq!(
        cli::listed(home.path()).await,
        "no conversations yet\n",
        "nothing stored"
    );
    // A real image still goes.
    home.model.push(ScriptedResponse::text("A picture."));
    let shot = files.path().join("shot.png");
    std::fs::write(&shot, png_header(64, 32)).unwrap();
    let out = finished(
        limited(&home).env("OPENAI_SUPPORTS_IMAGES", "1").args([
            "run",
            "--attach",
            shot.to_str().unwrap(),
            "look",
        ]),
        "shot.png",
    )
    .await;
    assert!(out.status.success(), "{}", cli::text(&out.stderr));
    let parts = home.model.turn_requests()[0].last_user_parts();
    assert!(
        parts[1]["image_url"]["url"]
            .as_str()
            .unwrap()
            .starts_with("data:image/png;base64,"),
        "{parts:?}"
    );
}

#[tokio::test]
async fn the_chat_refuses_a_fifo_or_a_device_without_blocking() {
    let home = Home::new().await;
    let files = tempfile::tempdir().unwrap();
    let pipe = files.path().join("pipe.png");
    fifo(&pipe);
    let pipe = pipe.display().to_string();
    let mut chat = limited(&home);
    chat.arg("chat").stdin(std::process::Stdio::piped());
    let mut child = chat.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    // `/attach`, an `@path` in a message, and the path alone (as pasted).
    let typed = format!("/attach {pipe}\nlook at @{pipe}\n/attach /dev/zero\n{pipe}\n/quit\n");
    stdin.write_all(typed.as_bytes()).await.unwrap();
    drop(stdin);
    let out = tokio::time::timeout(DEADLINE, child.wait_with_output())
        .await
        .expect("the chat blocked on a FIFO or a device")
        .unwrap();
    let stdout = cli::text(&out.stdout);
    assert!(out.status.success(), "{}", cli::text(&out.stderr));
    let refusal = format!(
        "cannot attach {pipe}: it is a FIFO (named pipe), not a regular file. Only regular \
         files can be attached; copy what it holds into a file first."
    );
    assert!(
        stdout.contains(&format!("error: {refusal} — nothing attached")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("error: {refusal} — the message was not sent")),
        "{stdout}"
    );
    assert!(
        stdout.contains("error: cannot attach /dev/zero: it is a character device"),
        "{stdout}"
    );
    assert!(!stdout.contains("attached ["), "nothing attached: {stdout}");
    // The path alone is no image pasted: it is what it looks like, a command (its
    // name lowercased as commands are).
    assert!(
        stdout.contains(&format!("unknown command {}", pipe.to_lowercase())),
        "{stdout}"
    );
    assert_eq!(home.model.request_count(), 0, "nothing sent");
}
