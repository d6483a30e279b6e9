//! `agent.json` `mcp`: when MCP tools wait for `SearchTools`, the pinned ones, and the
//! errors naming the file and the key.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use smallebot_agent::config::{AgentSettings, ConfigError, McpToolLoading};
use smallebot_core::rules::tool_search::ToolLoading;

const FILE: &str = "/home/me/.agents/agent.json";

fn parse(text: &str) -> Result<AgentSettings, ConfigError> {
    AgentSettings::from_json(text, Path::new(FILE))
}

#[test]
fn the_defaults_and_every_key() {
    assert_eq!(
        parse("{}").unwrap().mcp,
        McpToolLoading {
            loading: ToolLoading {
                max_share: 0.1,
                max_tools: 50,
            },
            pinned: Vec::new(),
        }
    );
    let text = r#"{"mcp": {"pinnedTools": ["mcp__files__read", "mcp__git__log"],
                           "maxToolShare": 0.25, "maxTools": 0}}"#;
    assert_eq!(
        parse(text).unwrap().mcp,
        McpToolLoading {
            loading: ToolLoading {
                max_share: 0.25,
                max_tools: 0,
            },
            pinned: vec!["files__read".to_owned(), "git__log".to_owned()],
        }
    );
}

#[test]
fn bad_values_are_errors_naming_the_file_and_the_key() {
    let cases = [
        (
            r#"{"mcp": {"maxToolShare": 1.5}}"#,
            "/home/me/.agents/agent.json: mcp.maxToolShare must be a share of the context \
             window from 0 to 1 (0.1 is 10 %), got 1.5",
        ),
        (
            r#"{"mcp": {"maxToolShare": -0.1}}"#,
            "/home/me/.agents/agent.json: mcp.maxToolShare must be a share of the context \
             window from 0 to 1 (0.1 is 10 %), got -0.1",
        ),
        (
            r#"{"mcp": {"maxTools": -1}}"#,
            "/home/me/.agents/agent.json: mcp.maxTools must be 0 or more, got -1",
        ),
        (
            r#"{"mcp": {"pinnedTools": ["files__read"]}}"#,
            "/home/me/.agents/agent.json: mcp.pinnedTools: \"files__read\" is not an MCP tool \
             name; write mcp__<server>__<tool>, the server as in mcp.json and the tool as \
             `smallebot mcp tools` lists it (e.g. \"mcp__files__read\")",
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(parse(text).unwrap_err().to_string(), expected, "{text}");
    }
    let unknown = parse(r#"{"mcp": {"pinned": []}}"#).unwrap_err();
    assert!(unknown.to_string().contains("pinnedTools"), "{unknown}");
}
