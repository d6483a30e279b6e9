//! Running the real `smallebot` binary in tests: a home directory of its own, no
//! configuration from the environment but the testkit endpoint when given.
#![allow(dead_code)]

use std::path::Path;
use std::process::Stdio;

/// `smallebot --home <home>` with the environment cleared of SmallEBot and OpenAI
/// settings, `USER=tester`, no input, output captured; pointed at `base_url` (model
/// `scripted`) when given. Killed when dropped.
pub fn smallebot(home: &Path, base_url: Option<&str>) -> tokio::process::Command {
    let mut c = tokio::process::Command::new(env!("CARGO_BIN_EXE_smallebot"));
    c.arg("--home")
        .arg(home)
        .env_remove("SMALLEBOT_HOME")
        .env_remove("OPENAI_API_KEY")
        .env_remove("OPENAI_BASE_URL")
        .env_remove("SMALLEBOT_MODEL")
        .env("USER", "tester")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    if let Some(url) = base_url {
        c.env("OPENAI_BASE_URL", url)
            .env("SMALLEBOT_MODEL", "scripted");
    }
    c
}

/// Output bytes as text.
pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Has `model` answer every title request with `A title`, outside its queue: a title
/// is asked for beside a conversation's first turn, at no fixed point of a script.
pub fn answer_titles(model: &smallebot_testkit::TestModel) {
    model.answer_when(smallebot_testkit::RecordedRequest::asks_for_title, |_| {
        smallebot_testkit::ScriptedResponse::text("A title")
    });
}
