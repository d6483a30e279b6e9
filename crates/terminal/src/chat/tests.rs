//! The REPL driven with scripted input against the testkit model.

use std::sync::Arc;
use std::time::Duration;

use smallebot_agent::tools::ToolRegistry;
use smallebot_application::{ConversationService, SendOptions};
use smallebot_testkit::{ScriptedResponse, TestModel};
use tokio::sync::mpsc;

use super::Repl;
use super::test_support::{run_repl, service_with};
use crate::render::{EventPrinter, Style};

async fn service(dir: &std::path::Path, server: &TestModel) -> Arc<ConversationService> {
    service_with(dir, server, ToolRegistry::new()).await
}

#[tokio::test]
async fn compact_shows_the_indicator_and_input_waits_until_it_ends() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let service = service(dir.path(), &server).await;
    let c = service.create_conversation("tester").await.unwrap();
    for i in 0..4 {
        server.push(ScriptedResponse::text(format!("answer {i}")));
        service
            .send(c.id, &filler(i), SendOptions::default())
            .await
            .unwrap();
    }
    // A slow summary, then the answer to the line typed after /compact.
    server.push(ScriptedResponse::text("SUMMARY").delay_before(Duration::from_millis(400)));
    server.push(ScriptedResponse::text("hello back"));
    let out = run_repl(
        &service,
        Some(c.id),
        b"/compact focus on greetings\nhello\n/quit\n",
    )
    .await;
    let indicator = out.find("Compressing context...").expect(&out);
    let compressed = out.find("context compressed").expect(&out);
    let answer = out.find("hello back").expect(&out);
    assert!(indicator < compressed && compressed < answer, "{out}");
    // The model saw "hello" only after the summary request was answered.
    let requests = server.requests();
    let summary = requests
        .iter()
        .position(|r| {
            r.last_user_text()
                .unwrap()
                .contains("## Conversation to summarize")
        })
        .unwrap();
    let hello = requests
        .iter()
        .position(|r| r.last_user_text().as_deref() == Some("hello"))
        .unwrap();
    assert!(summary < hello);
    assert!(
        requests[summary]
            .last_user_text()
            .unwrap()
            .contains("focus on greetings")
    );
}

#[tokio::test]
async fn ctrl_c_cancels_a_turn_and_twice_at_the_prompt_exits() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let service = service(dir.path(), &server).await;
    let c = service.create_conversation("tester").await.unwrap();
    // The title, asked for beside this first turn, never takes the turn's answer.
    server.answer_when(smallebot_testkit::RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    server.push(
        ScriptedResponse::text("a b c d e f g h i j")
            .chunk_size(2)
            .delay_between(Duration::from_millis(150)),
    );
    let (tx, interrupts) = mpsc::unbounded_channel();
    let mut out = Vec::new();
    let (input_tx, input_rx) = tokio::io::duplex(1024);
    let feeder = tokio::spawn(async move {
        use tokio::io::AsyncWriteExt;
        let mut input_tx = input_tx;
        input_tx.write_all(b"count slowly\n").await.unwrap();
        tokio::time::sleep(Duration::from_millis(400)).await;
        tx.send(()).unwrap(); // cancels the turn
        tokio::time::sleep(Duration::from_millis(400)).await;
        tx.send(()).unwrap(); // first at the prompt: a hint
        tx.send(()).unwrap(); // second: exit
        tokio::time::sleep(Duration::from_secs(5)).await;
        drop(input_tx);
    });
    {
        let printer = EventPrinter::new(&mut out, false, Style { ansi: false });
        let mut repl = Repl::new(
            Arc::clone(&service),
            "tester".into(),
            Some(c.id),
            printer,
            interrupts,
        );
        tokio::time::timeout(
            Duration::from_secs(4),
            repl.run(super::input::PipedInput::new(tokio::io::BufReader::new(
                input_rx,
            ))),
        )
        .await
        .expect("two Ctrl+C at the prompt exit")
        .unwrap();
    }
    feeder.abort();
    let out = String::from_utf8(out).unwrap();
    assert!(out.contains("(cancelled — partial answer kept)"), "{out}");
    assert!(out.contains("press Ctrl+C again to exit"), "{out}");
    let turns =
        smallebot_core::repository::TurnRepository::list_turns(service.store().as_ref(), c.id)
            .await
            .unwrap();
    assert_eq!(
        turns[0].status,
        smallebot_core::entities::TurnStatus::Cancelled
    );
}

#[tokio::test]
async fn the_service_asks_the_model_for_a_title_beside_the_first_turn_only() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let is_title = smallebot_testkit::RecordedRequest::asks_for_title;
    // Titles come back empty, so the fallback title stays and a chat loop that asked
    // after every turn would ask again each time.
    server.respond_with(move |r| {
        if is_title(r) {
            ScriptedResponse::text("")
        } else {
            ScriptedResponse::text("ok")
        }
    });
    let service = service(dir.path(), &server).await;
    let c = service.create_conversation("tester").await.unwrap();
    run_repl(&service, Some(c.id), b"first\nsecond\nthird\n/quit\n").await;
    // The title request runs beside the first turn, in the background: wait for it,
    // then let any other background work settle.
    for _ in 0..100 {
        if server.requests().iter().any(is_title) {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    tokio::time::sleep(Duration::from_millis(300)).await;
    let requests = server.requests();
    let titles = requests.iter().filter(|r| is_title(r)).count();
    assert_eq!(titles, 1, "{} requests", requests.len());
    assert_eq!(requests.len(), 4, "three turns and one title");
}

#[tokio::test]
async fn a_new_conversation_is_named_by_the_service() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    server.respond_with(|r| {
        if r.asks_for_title() {
            ScriptedResponse::text("Greetings")
        } else {
            ScriptedResponse::text("hi")
        }
    });
    let service = service(dir.path(), &server).await;
    run_repl(&service, None, b"hello there\n/quit\n").await;
    let mut title = String::new();
    for _ in 0..100 {
        let list = service
            .store()
            .list_conversations(Some("tester"))
            .await
            .unwrap();
        title.clone_from(&list[0].title);
        if title == "Greetings" {
            break;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(title, "Greetings");
}

#[tokio::test]
async fn a_compression_before_a_turn_and_the_turn_are_each_printed_once() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    let summary = |r: &smallebot_testkit::RecordedRequest| {
        r.last_user_text()
            .is_some_and(|t| t.contains("## Conversation to summarize"))
    };
    server.respond_with(move |r| {
        if summary(r) {
            ScriptedResponse::text("SUMMARY").delay_before(Duration::from_millis(300))
        } else {
            ScriptedResponse::text(format!("answer to {}", r.last_user_text().unwrap()))
        }
    });
    let store = smallebot_infrastructure::SqliteStore::open(&dir.path().join("db.sqlite"))
        .await
        .unwrap();
    let endpoint = smallebot_model_client::ChatEndpoint::new(server.base_url(), "m");
    // Three long turns fit a 1000-token window; the next message needs a compression.
    let history = smallebot_agent::history::HistorySettings {
        context_window: 1000,
        ..smallebot_agent::history::HistorySettings::default()
    };
    let agent = smallebot_agent::assembly::AgentAssembly::new(Arc::new(store), endpoint)
        .skill_path(dir.path().join("SKILL.md"))
        .history(history)
        .build()
        .unwrap();
    let service = Arc::new(agent.service);
    let c = service.create_conversation("tester").await.unwrap();
    for i in 0..3 {
        service
            .send(c.id, &filler(i), SendOptions::default())
            .await
            .unwrap();
    }
    let out = run_repl(&service, Some(c.id), b"the question\n/quit\n").await;
    assert_eq!(out.matches("context compressed").count(), 1, "{out}");
    assert_eq!(out.matches("answer to the question").count(), 1, "{out}");
    let compressed = out.find("context compressed").unwrap();
    assert!(
        compressed < out.find("answer to the question").unwrap(),
        "{out}"
    );
}

/// About 260 tokens of words.
fn filler(turn: usize) -> String {
    (0..260).map(|w| format!("w{turn}x{w} ")).collect()
}
