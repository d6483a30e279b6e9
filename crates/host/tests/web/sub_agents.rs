//! The sub-agents through the API: a conversation's timeline carries one card per
//! sub-agent its `Delegate` calls ran, read from the stored sub-agent conversations
//! (agent, title, outcome, tool calls of its latest run, its conversation's id); the
//! list leaves the sub-agents' conversations out, each stays readable by its id; a
//! conversation that delegated nothing has no cards.

use crate::common::Server;

use smallebot_agent::agents::AgentFolders;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, ToolCallSpec};

/// The system prompt of `request`.
fn system(request: &RecordedRequest) -> String {
    request
        .messages()
        .first()
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

fn delegate(call: &str, agent: &str, description: &str) -> ToolCallSpec {
    let args = serde_json::json!({
        "agent": agent, "prompt": "Do it.", "description": description,
    });
    ToolCallSpec::new(call, "Delegate", args.to_string())
}

#[tokio::test]
async fn the_timeline_carries_a_card_per_sub_agent_and_the_list_leaves_them_out() {
    let agents = tempfile::tempdir().unwrap();
    for (name, prompt) in [("clock", "You are clock."), ("mute", "You are mute.")] {
        std::fs::write(
            agents.path().join(format!("{name}.md")),
            format!(
                "---\nname: {name}\ndescription: Helps.\ntools: GetCurrentTime\n---\n{prompt}\n"
            ),
        )
        .unwrap();
    }
    let folders = AgentFolders {
        shared: agents.path().to_path_buf(),
        user: None,
    };
    let s = Server::start_custom(|agent| agent.sub_agents(folders, 8), |web| web).await;
    s.model.answer_when(
        |r| system(r).contains("You are clock."),
        |r| {
            if r.last_role() == Some("tool") {
                ScriptedResponse::text("It is noon.")
            } else {
                ScriptedResponse::tool_calls([ToolCallSpec::new("t1", "GetCurrentTime", "{}")])
            }
        },
    );
    s.model.answer_when(
        |r| system(r).contains("You are mute."),
        |_| ScriptedResponse::text("Nothing to say."),
    );
    s.model.respond_with(|r| match r.last_role() {
        Some("tool") => ScriptedResponse::text("Both answered."),
        _ if r.messages().iter().any(|m| m["content"] == "plain") => {
            ScriptedResponse::text("No delegation.")
        }
        _ => ScriptedResponse::tool_calls([
            delegate("d1", "clock", "read the clock"),
            delegate("d2", "mute", "say nothing"),
        ]),
    });
    let parent = s.create().await;
    s.turn(&parent, "Ask both.").await;

    let timeline = s.get_json(&format!("/api/conversations/{parent}")).await;
    let mut cards = timeline["sub_agents"].as_array().unwrap().clone();
    cards.sort_by_key(|c| c["call_id"].as_str().unwrap().to_owned());
    let seen: Vec<_> = cards
        .iter()
        .map(|c| {
            (
                c["call_id"].as_str().unwrap(),
                c["agent"].as_str().unwrap(),
                c["title"].as_str().unwrap(),
                c["outcome"].as_str().unwrap(),
                c["tool_calls"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        seen,
        [
            ("d1", "clock", "clock: read the clock", "completed", 1),
            ("d2", "mute", "mute: say nothing", "completed", 0),
        ],
        "{timeline}"
    );

    let listed = s.get_json("/api/conversations").await;
    let ids: Vec<&str> = listed
        .as_array()
        .unwrap()
        .iter()
        .map(|c| c["id"].as_str().unwrap())
        .collect();
    assert_eq!(
        ids,
        [parent.as_str()],
        "only the parent is listed: {listed}"
    );
    for card in &cards {
        let child = card["conversation_id"].as_str().unwrap();
        let read = s.get_json(&format!("/api/conversations/{child}")).await;
        assert_eq!(read["conversation"]["title"], card["title"], "{read}");
        assert_eq!(read["sub_agents"], serde_json::json!([]), "{read}");
    }

    let other = s.create().await;
    s.turn(&other, "plain").await;
    let plain = s.get_json(&format!("/api/conversations/{other}")).await;
    assert_eq!(plain["sub_agents"], serde_json::json!([]), "{plain}");
}
