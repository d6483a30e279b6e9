//! What the sub-agent tests share: agent files, telling a sub-agent's requests from its
//! parent's, `Delegate` calls.
#![allow(dead_code)]

use serde_json::{Value, json};
use smallebot_testkit::{RecordedRequest, ToolCallSpec};

/// The system prompt of a request.
pub fn system(request: &RecordedRequest) -> String {
    request
        .messages()
        .first()
        .and_then(|m| m.get("content"))
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_owned()
}

/// Whether `request` is `agent`'s (its file's prompt says "You are AGENT.").
pub fn of_agent(request: &RecordedRequest, agent: &str) -> bool {
    system(request).contains(&format!("You are {agent}."))
}

/// An agent file for `name`, allowed the one tool `tool`.
pub fn agent_file(name: &str, tool: &str) -> String {
    format!(
        "---\nname: {name}\ndescription: The {name} agent.\ntools: {tool}\n---\nYou are {name}. Use {tool} once, then answer.\n"
    )
}

/// The tool results a request carries, in order.
pub fn tool_results(request: &RecordedRequest) -> Vec<String> {
    request
        .messages()
        .iter()
        .filter(|m| m["role"] == "tool")
        .map(|m| m["content"].as_str().unwrap_or_default().to_owned())
        .collect()
}

/// A home with the agents `lister` (ListFiles) and `reader` (ReadFile).
pub fn home_with_two_agents() -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    let agents = home.path().join("agents");
    std::fs::create_dir_all(&agents).unwrap();
    std::fs::write(agents.join("lister.md"), agent_file("lister", "ListFiles")).unwrap();
    std::fs::write(agents.join("reader.md"), agent_file("reader", "ReadFile")).unwrap();
    home
}

/// A `Delegate` call.
pub fn delegate(id: &str, agent: &str, prompt: &str, description: &str) -> ToolCallSpec {
    let args = json!({"agent": agent, "prompt": prompt, "description": description});
    ToolCallSpec::new(id, "Delegate", args.to_string())
}
