//! Issue 39: the files the terminal reads to attach (`run --attach`, `/attach`, `@path`)
//! through the real binary. Only regular files are read: a device, a FIFO, a directory
//! or a socket is refused by name without blocking; a file's size is checked before it
//! is read (a 2 GB sparse file is never read); a file that starts as an image and is
//! none, or states an absurd size, is refused. Nothing is stored or sent.
//!
//! Each run gets an address-space limit well below what reading the sparse file or
//! `/dev/zero` whole would take, and a deadline far past a normal run: a reader that
//! takes everything fails the test instead of the machine, one that blocks on a FIFO
//! fails it instead of hanging.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::Path;
use std::process::Output;
use std::time::Duration;

use cli::text;
use smallebot_testkit::files::{png_header, png_signature_then_html};
use smallebot_testkit::{ScriptedResponse, TestModel};
use tokio::io::AsyncWriteExt as _;

/// The address space a run may take, in KiB: a start-up takes a few hundred MiB
/// (reserved, mostly untouched); a 2 GB file read whole does not fit.
const ADDRESS_SPACE_KIB: u64 = 1536 * 1024;

/// Far past the second or so any of these takes: only a blocked read reaches it.
const DEADLINE: Duration = Duration::from_secs(60);

/// `smallebot` as `cli::smallebot` configures it, run under `ulimit -v`.
fn limited(home: &Path, base_url: &str) -> tokio::process::Command {
    let configured = cli::smallebot(home, Some(base_url));
    let std = configured.as_std();
    let mut command = tokio::process::Command::new("sh");
    command
        .arg("-c")
        .arg(format!(
            "ulimit -v {ADDRESS_SPACE_KIB} && exec \"$0\" \"$@\""
        ))
        .arg(std.get_program())
        .args(std.get_args())
        .env_clear()
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    for (key, value) in std::env::vars_os() {
        command.env(key, value);
    }
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

#[tokio::test]
async fn run_attach_refuses_anything_but_a_regular_file_without_reading_it() {
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    cli::answer_titles(&server);
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
            limited(home.path(), &server.base_url()).args(["run", "--attach", &path, "look"]),
            &path,
        )
        .await;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{path}: {stderr}");
        assert!(stderr.contains(&expected), "{path}: {stderr}");
    }
    assert_eq!(server.request_count(), 0, "nothing sent");
    assert_eq!(
        cli::listed(home.path()).await,
        "no conversations yet\n",
        "nothing stored"
    );
}

#[tokio::test]
async fn run_attach_refuses_an_image_that_is_none_or_of_an_absurd_size() {
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    cli::answer_titles(&server);
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
            limited(home.path(), &server.base_url())
                .env("OPENAI_SUPPORTS_IMAGES", "1")
                .args(["run", "--attach", path.to_str().unwrap(), "look"]),
            expected,
        )
        .await;
        let stderr = text(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
    assert_eq!(server.request_count(), 0, "nothing sent");
    assert_eq!(
        cli::listed(home.path()).await,
        "no conversations yet\n",
        "nothing stored"
    );
    // A real image still goes.
    server.push(ScriptedResponse::text("A picture."));
    let shot = files.path().join("shot.png");
    std::fs::write(&shot, png_header(64, 32)).unwrap();
    let out = finished(
        limited(home.path(), &server.base_url())
            .env("OPENAI_SUPPORTS_IMAGES", "1")
            .args(["run", "--attach", shot.to_str().unwrap(), "look"]),
        "shot.png",
    )
    .await;
    assert!(out.status.success(), "{}", text(&out.stderr));
    let parts = server.turn_requests()[0].last_user_parts();
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
    let home = tempfile::tempdir().unwrap();
    let files = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let pipe = files.path().join("pipe.png");
    fifo(&pipe);
    let pipe = pipe.display().to_string();
    let mut chat = limited(home.path(), &server.base_url());
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
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{}", text(&out.stderr));
    let refusal = format!("cannot attach {pipe}: it is a FIFO (named pipe), not a regular file");
    assert!(
        stdout.contains(&format!("error: {refusal}")) && stdout.contains("nothing attached"),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("{refusal}. Only regular files can be attached; copy what it holds into a file first. — the message was not sent")),
        "{stdout}"
    );
    assert!(
        stdout.contains("cannot attach /dev/zero: it is a character device"),
        "{stdout}"
    );
    assert_eq!(
        stdout.matches("attached [").count(),
        0,
        "nothing attached: {stdout}"
    );
    // The path alone is no image pasted: it is what it looks like, a command (its
    // name lowercased as commands are).
    assert!(
        stdout.contains(&format!("unknown command {}", pipe.to_lowercase())),
        "{stdout}"
    );
    assert_eq!(server.request_count(), 0, "nothing sent");
}
