//! Answers laid out to the terminal's width in a real terminal (tmux): the open part
//! of a streaming answer re-flowed when the window narrows (no word cut, nothing drawn
//! twice), and under `NO_COLOR` answers still wrapped at word boundaries.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use smallebot_testkit::{Gate, ScriptedResponse, TestModel};
use tmux::Tmux;

/// 40 words of 8 characters, `word0001 word0002 …`: every 9-character piece streamed is
/// one word and its space.
fn words() -> Vec<String> {
    (1..=40).map(|i| format!("word{i:04}")).collect()
}

/// The rows of the screen that hold answer words, as the terminal shows them.
fn answer_rows(term: &Tmux) -> Vec<String> {
    term.rows(false)
        .lines()
        .filter(|row| row.contains("word0"))
        .map(|row| row.trim_end().to_owned())
        .collect()
}

/// Every row is at most `width` columns, holds whole words only, and the words shown
/// are the first ones of the answer, each once.
fn assert_wrapped(rows: &[String], width: usize, words: &[String]) {
    let shown: Vec<&str> = rows.iter().flat_map(|r| r.split_whitespace()).collect();
    for row in rows {
        assert!(
            row.chars().count() <= width,
            "{row:?} is wider than {width}:\n{rows:#?}"
        );
    }
    assert!(!shown.is_empty());
    assert_eq!(
        shown,
        words[..shown.len()],
        "a word cut or shown twice:\n{rows:#?}"
    );
}

async fn model(pause: Option<&Gate>) -> TestModel {
    let model = TestModel::start().await.unwrap();
    let answer = words().join(" ");
    let pause = pause.cloned();
    model.respond_with(move |req| {
        if req.asks_for_title() {
            return ScriptedResponse::text("A title");
        }
        let response = ScriptedResponse::text(answer.clone()).chunk_size(9);
        match &pause {
            Some(gate) => response.pause_after_chunks(20, gate),
            None => response,
        }
    });
    model
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_resize_reflows_the_open_answer() {
    let home = tempfile::tempdir().unwrap();
    let gate = Gate::new();
    let model = model(Some(&gate)).await;
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    let Some(term) = Tmux::start_sized("resize", home.path(), &env, &["chat"], (80, 30)) else {
        return;
    };
    term.wait_for("› ");
    term.type_text("count");
    term.keys(&["Enter"]);
    term.wait_for("word0010");
    // Resized only once the stream has paused: output still on its way while the
    // terminal re-flows was laid out for the old width (a race no program can win).
    let mut shown = answer_rows(&term);
    loop {
        std::thread::sleep(std::time::Duration::from_millis(300));
        let now = answer_rows(&term);
        if now == shown {
            break;
        }
        shown = now;
    }
    let words = words();
    assert_wrapped(&answer_rows(&term), 80, &words);
    term.resize((40, 30));
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    loop {
        let rows = answer_rows(&term);
        if rows.iter().all(|r| r.chars().count() <= 40) && rows.len() > 2 {
            let shown: Vec<&str> = rows.iter().flat_map(|r| r.split_whitespace()).collect();
            if shown == words[..shown.len()] {
                break;
            }
        }
        assert!(
            std::time::Instant::now() < deadline,
            "not re-flowed:\n{rows:#?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    gate.open();
    term.wait_for_prompt_after("word0040");
    let rows = answer_rows(&term);
    assert_wrapped(&rows, 40, &words);
    let shown: usize = rows.iter().map(|r| r.split_whitespace().count()).sum();
    assert_eq!(shown, words.len(), "{rows:#?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn under_no_color_answers_wrap_between_words() {
    let home = tempfile::tempdir().unwrap();
    let model = model(None).await;
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
        ("NO_COLOR", "1"),
    ];
    let Some(term) = Tmux::start_sized("no color wrap", home.path(), &env, &["chat"], (40, 30))
    else {
        return;
    };
    term.wait_for("› ");
    term.type_text("count");
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("word0040");
    let rows = answer_rows(&term);
    assert_wrapped(&rows, 40, &words());
    assert_eq!(rows.len(), 10, "four words a line:\n{rows:#?}");
    let coloured = term.rows(true);
    assert!(!coloured.contains('\x1b'), "{coloured:?}");
}
