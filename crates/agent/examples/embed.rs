//! Embedding SmallEBot in another program: a conversation service built from a home
//! directory (agent.json, models.json, terminal.json, as the command line reads them),
//! with its answer streamed from the conversation's events.
//!
//! ```sh
//! OPENAI_API_KEY=sk-… cargo run -p smallebot-agent --example embed -- .agents "What time is it?"
//! ```
//!
//! `cargo test -p smallebot-agent --example embed` runs it against the scripted testkit
//! model.

use std::error::Error;
use std::path::Path;
use std::sync::Arc;

use smallebot_agent::assembly::AgentAssembly;
use smallebot_application::{EventKind, SendOptions};
use smallebot_infrastructure::{FileTaskStore, SqliteStore};

/// Asks one question in a new conversation and returns the answer, printing it (and
/// every tool call) as it streams in.
async fn ask(home: &Path, question: &str) -> Result<String, Box<dyn Error>> {
    let store = SqliteStore::open(&home.join("smallebot.db")).await?;
    let agent = AgentAssembly::from_home(home)?
        .store(Arc::new(store.clone()))
        .task_store(Arc::new(FileTaskStore::new(home.join("tasks"))))
        .build()?;
    let service = Arc::new(agent.service);
    let conversation = service.create_conversation("embedded").await?;
    // Returns once the question is stored; the turn runs on, its events in the handle.
    let handle = service
        .start(conversation.id, question, SendOptions::default())
        .await?;
    let mut events = handle.events;
    let printer = tokio::spawn(async move {
        while let Some(event) = events.recv().await {
            match event.kind {
                EventKind::TextDelta { text } => print!("{text}"),
                EventKind::ToolCallStarted { tool_name, .. } => println!("[{tool_name}]"),
                kind if kind.ends_turn() => break,
                _ => {}
            }
        }
    });
    let outcome = handle.end.await??;
    printer.await?;
    println!();
    store.close().await;
    Ok(outcome.text)
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(home), Some(question)) = (args.next(), args.next()) else {
        return Err("usage: embed HOME QUESTION".into());
    };
    ask(Path::new(&home), &question).await?;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use smallebot_testkit::TestModel;
    use smallebot_testkit::scenarios::demo_scenario;

    #[tokio::test]
    async fn answers_through_the_testkit_model() {
        let model = TestModel::start().await.unwrap();
        demo_scenario(&model);
        let home = tempfile::tempdir().unwrap();
        let models = serde_json::json!({"models": [{
            "id": "demo", "baseUrl": model.base_url(), "model": "demo-model"
        }]});
        std::fs::write(home.path().join("models.json"), models.to_string()).unwrap();

        let answer = super::ask(home.path(), "What time is it?").await.unwrap();

        assert!(answer.starts_with("It is "), "{answer}");
        let requests = model.requests();
        assert_eq!(requests.len(), 2, "a tool call, then the answer");
        assert_eq!(requests[1].last_role(), Some("tool"));
    }
}
