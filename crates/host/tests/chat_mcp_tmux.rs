//! MCP resources and prompts in a real terminal (tmux), against the official reference
//! server "everything" over stdio: `/help` lists its prompts, Tab completes a resource
//! after `@` and a prompt after `/`, the resource's text goes with the message and the
//! prompt's message is shown and sent. Skipped with one loud line without tmux or the reference
//! servers (CI requires both).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

/// The text of the last turn request's user message, part by part.
fn last_user_texts(model: &smallebot_testkit::TestModel) -> Vec<String> {
    let request = model
        .turn_requests()
        .into_iter()
        .last()
        .expect("a turn was sent");
    request
        .last_user_parts()
        .iter()
        .map(|part| part["text"].as_str().unwrap_or_default().to_owned())
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_servers_resources_and_prompts_in_the_chat() {
    let Some(server) = smallebot_testkit::reference_servers::everything("chat mcp tmux") else {
        return;
    };
    let home = tempfile::tempdir().unwrap();
    let cwd = tempfile::tempdir().unwrap();
    let config = serde_json::json!({
        "mcpServers": { "everything": { "command": server.program, "args": server.args } }
    });
    std::fs::write(home.path().join("mcp.json"), config.to_string()).unwrap();
    let model = tmux::answering("noted").await;
    let Some(term) = tmux::chat_in("mcp resources and prompts", home.path(), cwd.path(), &model)
    else {
        return;
    };
    term.wait_for("› ");
    term.type_text("/help");
    term.keys(&["Enter"]);
    term.wait_for("/everything:args-prompt CITY [STATE]");

    let uri = "demo://resource/static/document/architecture.md";
    term.type_text("summarize @everything:demo://resource/static/document/archi");
    term.keys(&["Tab"]);
    term.wait_for(&format!("› summarize @everything:{uri} "));
    term.keys(&["Enter"]);
    term.wait_for_prompt_after("[context");
    let texts = last_user_texts(&model);
    assert_eq!(
        texts[0].trim_end(),
        format!("summarize @everything:{uri}"),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t.contains("Everything Server – Architecture")),
        "the resource's text went with the message: {texts:?}"
    );

    let sent = model.turn_requests().len();
    term.type_text("/everything:args");
    term.keys(&["Tab"]);
    term.wait_for("› /everything:args-prompt ");
    term.type_text("Lisbon");
    term.keys(&["Enter"]);
    term.wait_for("/everything:args-prompt sends:\n  What's weather in Lisbon?");
    term.wait_for_prompt_after("What's weather in Lisbon?");
    assert!(model.turn_requests().len() > sent, "the prompt was sent");
    let last = model.turn_requests().into_iter().last().unwrap();
    assert_eq!(
        last.last_user_text().as_deref(),
        Some("What's weather in Lisbon?")
    );
}
