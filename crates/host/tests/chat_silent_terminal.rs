//! `smallebot chat` on a pseudo-terminal that never answers the cursor-position query
//! (`script` relaying to pipes): the prompt comes at once, and messages still work.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// Waits until `output` holds `needle`; how long that took from `since`.
fn wait_for(output: &Arc<Mutex<Vec<u8>>>, needle: &str, since: Instant) -> Duration {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let text = String::from_utf8_lossy(&output.lock().unwrap()).into_owned();
        if text.contains(needle) {
            return since.elapsed();
        }
        assert!(Instant::now() < deadline, "no {needle:?} in {text:?}");
        std::thread::sleep(Duration::from_millis(10));
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_terminal_that_does_not_answer_the_cursor_query_gets_the_prompt_at_once() {
    if Command::new("script").arg("--version").output().is_err() {
        eprintln!("!!! SKIPPED: `script` (util-linux) is not installed");
        return;
    }
    let model = tmux::answering("the answer").await;
    let home = tempfile::tempdir().unwrap();
    let command = format!(
        "'{}' --home '{}' chat",
        env!("CARGO_BIN_EXE_smallebot"),
        home.path().display()
    );
    let started = Instant::now();
    let mut child = Command::new("script")
        .args(["-qfec", &command, "/dev/null"])
        .env("OPENAI_BASE_URL", model.base_url())
        .env("SMALLEBOT_MODEL", "scripted")
        .env_remove("SMALLEBOT_HOME")
        .env_remove("OPENAI_API_KEY")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let output = Arc::new(Mutex::new(Vec::new()));
    let mut stdout = child.stdout.take().unwrap();
    let sink = Arc::clone(&output);
    std::thread::spawn(move || {
        let mut buffer = [0_u8; 4096];
        while let Ok(read) = stdout.read(&mut buffer) {
            if read == 0 {
                break;
            }
            sink.lock().unwrap().extend_from_slice(&buffer[..read]);
        }
    });
    let waited = wait_for(&output, "› ", started);
    assert!(
        waited < Duration::from_millis(1_500),
        "the prompt came after {waited:?}"
    );
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(b"hi\n").unwrap();
    wait_for(&output, "the answer", started);
    stdin.write_all(b"/quit\n").unwrap();
    drop(stdin);
    let _ = child.wait();
}
