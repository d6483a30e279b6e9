//! `agent.json`: defaults, range rules and errors with file and position.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;
use std::time::Duration;

use smallebot_agent::config::{
    AgentSettings, CommandEnvironment, ConfigError, McpToolLoading, ReasoningEffort,
    ToolHistoryFormat,
};
use smallebot_agent::tools::permission_argument;
use smallebot_core::rules::attachment::AttachmentLimits;
use smallebot_core::rules::budget::Budgets;
use smallebot_core::rules::permission::{DefaultMode, PermissionRule, PermissionRules};
use smallebot_core::rules::upload_quota::UploadQuotas;

const FILE: &str = "/home/me/.agents/agent.json";

fn parse(text: &str) -> Result<AgentSettings, ConfigError> {
    AgentSettings::from_json(text, Path::new(FILE))
}

fn settings(text: &str) -> AgentSettings {
    parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
}

#[test]
fn tool_result_max_length_rules() {
    let cases = [
        (100, 100),
        (500, 500),
        (10_000, 10_000),
        (99, 500),
        (50, 500),
        (0, 500),
        (-7, 500),
        (10_001, 10_000),
        (20_000, 10_000),
    ];
    for (given, expected) in cases {
        let s = settings(&format!("{{\"toolResultMaxLength\": {given}}}"));
        assert_eq!(s.tool_result_max_length, expected, "given {given}");
    }
}

#[test]
fn compression_threshold_rules() {
    let cases = [
        ("0.3", 0.8),
        ("0.5", 0.5),
        ("0.7", 0.7),
        ("0.95", 0.95),
        ("0.99", 0.95),
        ("2", 0.95),
        ("-1", 0.8),
    ];
    for (given, expected) in cases {
        let s = settings(&format!("{{\"compressionThreshold\": {given}}}"));
        assert!(
            (s.compression_threshold - expected).abs() < 1e-12,
            "given {given}: {}",
            s.compression_threshold
        );
    }
}

/// Reads one numeric setting.
type Field = fn(&AgentSettings) -> u64;

#[test]
fn turn_step_and_timeout_rules() {
    let cases: [(&str, Field, u64); 16] = [
        (
            r#"{"keepRecentTurns": 0}"#,
            |s| s.keep_recent_turns as u64,
            1,
        ),
        (
            r#"{"keepRecentTurns": 5}"#,
            |s| s.keep_recent_turns as u64,
            5,
        ),
        (r#"{"maxToolSteps": 0}"#, |s| s.max_tool_steps as u64, 1),
        (r#"{"maxToolSteps": 80}"#, |s| s.max_tool_steps as u64, 80),
        (r#"{"maxToolSteps": 900}"#, |s| s.max_tool_steps as u64, 500),
        (r#"{}"#, |s| s.max_parallel_agents as u64, 4),
        (
            r#"{"maxParallelAgents": 0}"#,
            |s| s.max_parallel_agents as u64,
            1,
        ),
        (
            r#"{"maxParallelAgents": 8}"#,
            |s| s.max_parallel_agents as u64,
            8,
        ),
        (
            r#"{"maxParallelAgents": 99}"#,
            |s| s.max_parallel_agents as u64,
            32,
        ),
        (
            r#"{"streamIdleTimeoutSeconds": 0}"#,
            |s| s.stream_idle_timeout.as_secs(),
            1,
        ),
        (
            r#"{"streamIdleTimeoutSeconds": -5}"#,
            |s| s.stream_idle_timeout.as_secs(),
            1,
        ),
        (
            r#"{"streamIdleTimeoutSeconds": 30}"#,
            |s| s.stream_idle_timeout.as_secs(),
            30,
        ),
        (r#"{}"#, |s| s.stream_idle_timeout.as_secs(), 120),
        (r#"{}"#, |s| s.first_byte_timeout.as_secs(), 600),
        (
            r#"{"firstByteTimeoutSeconds": 0}"#,
            |s| s.first_byte_timeout.as_secs(),
            1,
        ),
        (
            r#"{"firstByteTimeoutSeconds": 1800}"#,
            |s| s.first_byte_timeout.as_secs(),
            1800,
        ),
    ];
    for (text, field, expected) in cases {
        assert_eq!(field(&settings(text)), expected, "{text}");
    }
}

#[test]
fn defaults() {
    let s = AgentSettings::default();
    assert_eq!(s.tool_result_max_length, 500);
    assert!((s.compression_threshold - 0.8).abs() < 1e-12);
    assert_eq!(s.keep_recent_turns, 2);
    assert_eq!(s.max_tool_steps, 50);
    assert_eq!(s.tool_history_format, ToolHistoryFormat::Native);
    assert_eq!(s.stream_idle_timeout, Duration::from_secs(120));
    assert_eq!(s.user_name, None);
    assert_eq!(s.system_prompt, None);
    assert_eq!((s.request_max_retries, s.stream_max_retries), (4, 5));
    assert_eq!(s.reasoning_effort, ReasoningEffort::Medium);
    assert_eq!(s.summary_max_tokens, 500);
    assert_eq!(settings("{}"), s);
}

#[test]
fn all_keys_are_read() {
    let s = settings(
        r#"{ "toolResultMaxLength": 2000, "compressionThreshold": 0.9,
             "toolResultMaxLengthByTool": {"ReadConversationData": 8000, "GrepContent": 50,
                                           "Huge": 99999},
             "keepRecentTurns": 3, "maxToolSteps": 20, "toolHistoryFormat": "inline",
             "streamIdleTimeoutSeconds": 45, "userName": "ada",
             "systemPrompt": "Be brief.",
             "requestMaxRetries": 0, "streamMaxRetries": 20, "reasoningEffort": "low",
             "summaryMaxTokens": 800,
             "budgets": { "perTurn": 0.5, "perUserMonthly": 100 },
             "attachments": { "maxFileBytes": 1000, "maxMessageBytes": 5000,
                              "maxInlineTokens": 300, "maxPendingBytesPerUser": 9000,
                              "maxPendingBytesPerConversation": 6000,
                              "maxPartsPerUpload": 4, "maxFilesPerMessage": 3,
                              "pendingExpirySeconds": 60 },
             "permissions": { "deny": ["ExecuteCommand(curl:*)"], "defaultMode": "ask" } }"#,
    );
    assert_eq!(
        s,
        AgentSettings {
            tool_result_max_length: 2000,
            // Same bounds as the global value; below the minimum means the global one.
            tool_result_max_length_by_tool: [
                ("GrepContent".to_owned(), 2000),
                ("Huge".to_owned(), 10_000),
                ("ReadConversationData".to_owned(), 8000),
            ]
            .into(),
            compression_threshold: 0.9,
            keep_recent_turns: 3,
            max_tool_steps: 20,
            max_parallel_agents: AgentSettings::DEFAULT_MAX_PARALLEL_AGENTS,
            tool_history_format: ToolHistoryFormat::Inline,
            stream_idle_timeout: Duration::from_secs(45),
            first_byte_timeout: Duration::from_secs(600),
            user_name: Some("ada".into()),
            system_prompt: Some("Be brief.".into()),
            request_max_retries: 0,
            stream_max_retries: 20,
            reasoning_effort: ReasoningEffort::Low,
            command_environment: CommandEnvironment::default(),
            summary_max_tokens: 800,
            budgets: Budgets {
                per_turn: Some(500_000_000_000),
                per_user_monthly: Some(100_000_000_000_000),
                ..Budgets::default()
            },
            attachments: AttachmentLimits {
                max_file_bytes: 1000,
                max_message_bytes: 5000,
                max_inline_tokens: 300,
            },
            uploads: UploadQuotas {
                max_pending_bytes_per_user: 9000,
                max_pending_bytes_per_conversation: 6000,
                max_parts_per_upload: 4,
                max_files_per_message: 3,
                pending_expiry_seconds: 60,
            },
            checkpoints: smallebot_checkpoints::CheckpointSettings::default(),
            permissions: PermissionRules {
                deny: vec![
                    PermissionRule::parse("ExecuteCommand(curl:*)", &permission_argument).unwrap()
                ],
                default_mode: DefaultMode::Ask,
                ..PermissionRules::default()
            },
            // Read and checked in config_agent_mcp.rs.
            mcp: McpToolLoading::default(),
        }
    );
}

#[test]
fn attachment_limits_default_and_bad_values_are_errors() {
    assert_eq!(settings("{}").attachments, AttachmentLimits::default());
    assert_eq!(settings("{}").uploads, UploadQuotas::default());
    assert_eq!(
        settings(r#"{"attachments": {"maxInlineTokens": 20}}"#).attachments,
        AttachmentLimits {
            max_inline_tokens: 20,
            ..AttachmentLimits::default()
        }
    );
    for (text, expected) in [
        (
            r#"{"attachments": {"maxFileBytes": 0}}"#,
            "/home/me/.agents/agent.json: attachments.maxFileBytes must be at least 1, got 0",
        ),
        (
            r#"{"attachments": {"maxInlineTokens": -5}}"#,
            "/home/me/.agents/agent.json: attachments.maxInlineTokens must be at least 1, got -5",
        ),
        (
            r#"{"attachments": {"maxFileBytes": 100, "maxMessageBytes": 10}}"#,
            "/home/me/.agents/agent.json: attachments.maxMessageBytes (10) is below \
             attachments.maxFileBytes (100): a message could not carry one file of the \
             largest size; raise maxMessageBytes or lower maxFileBytes",
        ),
        (
            r#"{"attachments": {"maxPartsPerUpload": 0}}"#,
            "/home/me/.agents/agent.json: attachments.maxPartsPerUpload must be at least 1, got 0",
        ),
        (
            r#"{"attachments": {"pendingExpirySeconds": -1}}"#,
            "/home/me/.agents/agent.json: attachments.pendingExpirySeconds must be at least 1, got -1",
        ),
        (
            r#"{"attachments": {"maxMessageBytes": 100, "maxFileBytes": 100, "maxPendingBytesPerConversation": 99}}"#,
            "/home/me/.agents/agent.json: attachments.maxPendingBytesPerConversation (99) is \
             below attachments.maxMessageBytes (100): one message's files could not wait to \
             be sent; raise maxPendingBytesPerConversation or lower maxMessageBytes",
        ),
        (
            r#"{"attachments": {"maxMessageBytes": 100, "maxFileBytes": 100, "maxPendingBytesPerConversation": 500, "maxPendingBytesPerUser": 400}}"#,
            "/home/me/.agents/agent.json: attachments.maxPendingBytesPerUser (400) is below \
             attachments.maxPendingBytesPerConversation (500): one conversation's files \
             could not wait to be sent; raise maxPendingBytesPerUser or lower \
             maxPendingBytesPerConversation",
        ),
    ] {
        assert_eq!(parse(text).unwrap_err().to_string(), expected, "{text}");
    }
    let unknown = parse(r#"{"attachments": {"maxFileSize": 10}}"#).unwrap_err();
    assert!(
        matches!(unknown, ConfigError::Invalid { .. }),
        "{unknown:?}"
    );
    assert!(unknown.to_string().contains("maxFileBytes"), "{unknown}");
}

#[test]
fn budgets_are_amounts_in_picos_and_bad_ones_are_errors() {
    assert_eq!(settings("{}").budgets, Budgets::default());
    assert_eq!(
        settings(r#"{"budgets": {"perConversation": 0.02, "perUserDaily": 3}}"#).budgets,
        Budgets {
            per_conversation: Some(20_000_000_000),
            per_user_daily: Some(3_000_000_000_000),
            ..Budgets::default()
        }
    );
    for (text, expected) in [
        (
            r#"{"budgets": {"perTurn": -1}}"#,
            "/home/me/.agents/agent.json: budgets.perTurn is -1: give an amount in the models' \
             price currency, from 0 to 1000000",
        ),
        (
            r#"{"budgets": {"perUserMonthly": 2e9}}"#,
            "/home/me/.agents/agent.json: budgets.perUserMonthly is 2000000000: give an amount \
             in the models' price currency, from 0 to 1000000",
        ),
    ] {
        assert_eq!(parse(text).unwrap_err().to_string(), expected, "{text}");
    }
    let unknown = parse(r#"{"budgets": {"perDay": 1}}"#).unwrap_err();
    assert!(unknown.to_string().contains("perUserDaily"), "{unknown}");
}

#[test]
fn retry_counts_out_of_range_and_unknown_efforts_are_errors() {
    for (text, expected) in [
        (
            r#"{"requestMaxRetries": 21}"#,
            "/home/me/.agents/agent.json: requestMaxRetries must be between 0 and 20, got 21",
        ),
        (
            r#"{"streamMaxRetries": -1}"#,
            "/home/me/.agents/agent.json: streamMaxRetries must be between 0 and 20, got -1",
        ),
    ] {
        assert_eq!(parse(text).unwrap_err().to_string(), expected, "{text}");
    }
    let effort = parse(r#"{"reasoningEffort": "max"}"#).unwrap_err();
    assert!(matches!(effort, ConfigError::Invalid { .. }), "{effort:?}");
}

#[test]
fn blank_strings_and_nulls_mean_unset() {
    let s = settings(r#"{"userName": "  ", "systemPrompt": "", "maxToolSteps": null}"#);
    assert_eq!(s.user_name, None);
    assert_eq!(s.system_prompt, None);
    assert_eq!(s.max_tool_steps, 50);
}

#[test]
fn missing_file_gives_defaults_and_present_file_is_read() {
    let home = tempfile::tempdir().unwrap();
    assert_eq!(
        AgentSettings::load(home.path()).unwrap(),
        AgentSettings::default()
    );
    std::fs::write(
        home.path().join("agent.json"),
        r#"{"toolResultMaxLength": 50}"#,
    )
    .unwrap();
    assert_eq!(
        AgentSettings::load(home.path())
            .unwrap()
            .tool_result_max_length,
        500
    );
    std::fs::write(
        home.path().join("agent.json"),
        r#"{"toolResultMaxLength": 1234}"#,
    )
    .unwrap();
    assert_eq!(
        AgentSettings::load(home.path())
            .unwrap()
            .tool_result_max_length,
        1234
    );
}

/// Asserts `err` is `Invalid` at `line`:`column` and its Display names the file there.
fn assert_invalid_at(err: &ConfigError, file: &str, line: usize, column: usize) {
    match err {
        ConfigError::Invalid {
            line: l, column: c, ..
        } => assert_eq!((*l, *c), (line, column), "{err}"),
        other => panic!("expected Invalid, got {other:?}"),
    }
    let shown = err.to_string();
    assert!(
        shown.starts_with(&format!("{file}:{line}:{column}: ")),
        "{shown}"
    );
}

#[test]
fn invalid_json_names_file_and_position() {
    let err = parse("{\n  \"toolResultMaxLength\": 600,\n    }\n").unwrap_err();
    assert_invalid_at(&err, FILE, 3, 5);
}

#[test]
fn invalid_file_on_disk_is_an_error_not_defaults() {
    let home = tempfile::tempdir().unwrap();
    let file = home.path().join("agent.json");
    std::fs::write(&file, "{\n  \"maxToolSteps\": 3,\n    }\n").unwrap();
    let err = AgentSettings::load(home.path()).unwrap_err();
    assert_invalid_at(&err, &file.display().to_string(), 3, 5);
}

#[test]
fn wrong_type_is_an_error_with_position() {
    let err = parse("{\n  \"toolResultMaxLength\": \"big\"\n}").unwrap_err();
    assert_invalid_at(&err, FILE, 2, 30);
    assert!(err.to_string().contains("invalid type"), "{err}");
    assert!(parse(r#"{"compressionThreshold": "high"}"#).is_err());
    assert!(parse(r#"{"userName": 7}"#).is_err());
    assert!(parse(r#"[1, 2]"#).is_err());
}

#[test]
fn unknown_tool_history_format_is_an_error() {
    let err = parse("{\n \"toolHistoryFormat\": \"xml\"\n}").unwrap_err();
    assert_invalid_at(&err, FILE, 2, 27);
    let shown = err.to_string();
    assert!(
        shown.contains("xml") && shown.contains("native") && shown.contains("inline"),
        "{shown}"
    );
}

#[test]
fn unknown_keys_are_errors_naming_the_nearest_key_and_keys_ignore_case() {
    let file = std::path::Path::new("/home/me/.agents/agent.json");
    // A misspelt key must not silently mean its default.
    let err = AgentSettings::from_json("{\n  \"toolResultMaxLenght\": 2000\n}", file)
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "/home/me/.agents/agent.json:2:3: unknown key \"toolResultMaxLenght\" in the agent \
         settings; did you mean \"toolResultMaxLength\"?"
    );
    // The original system's reader matched keys in any case.
    let settings =
        AgentSettings::from_json(r#"{"ToolResultMaxLength": 2000, "MAXTOOLSTEPS": 7}"#, file)
            .unwrap();
    assert_eq!(settings.tool_result_max_length, 2000);
    assert_eq!(settings.max_tool_steps, 7);
    let twice = AgentSettings::from_json(r#"{"userName": "a", "username": "b"}"#, file)
        .unwrap_err()
        .to_string();
    assert!(twice.contains("is given twice"), "{twice}");
    // Not an object: said in the file's terms, not the parser's type names.
    let array = AgentSettings::from_json("[]", file)
        .unwrap_err()
        .to_string();
    assert_eq!(
        array,
        "/home/me/.agents/agent.json:1:1: expected a JSON object with the agent settings, found an array"
    );
}

#[test]
fn command_environment_is_read_and_checked() {
    // Keys in any case, like the file's other keys.
    let s = settings(
        r#"{"CommandEnvironment": {"PASS": ["GITHUB_TOKEN"], "Set": {"RUST_LOG": "info"}}}"#,
    );
    assert_eq!(
        s.command_environment,
        CommandEnvironment {
            pass: vec!["GITHUB_TOKEN".to_owned()],
            set: [("RUST_LOG".to_owned(), "info".to_owned())].into(),
        }
    );
    assert_eq!(
        settings("{}").command_environment,
        CommandEnvironment::default()
    );
    // (file text, what the error must say)
    let cases = [
        (
            r#"{"commandEnvironment": {"pass": ["A=B"]}}"#,
            "commandEnvironment.pass: \"A=B\" is not a variable name (it contains '=')",
        ),
        (
            r#"{"commandEnvironment": {"set": {"": "x"}}}"#,
            "commandEnvironment.set: \"\" is not a variable name (it is empty)",
        ),
        (
            r#"{"commandEnvironment": {"set": {"A": "x\u0000"}}}"#,
            "commandEnvironment.set.A: the value contains a NUL character",
        ),
        (
            r#"{"commandEnvironment": {"passs": []}}"#,
            "did you mean \"pass\"",
        ),
        (
            r#"{"commandEnvironment": {"pass": "A"}}"#,
            "expected a sequence",
        ),
    ];
    for (text, expected) in cases {
        let error = parse(text).unwrap_err().to_string();
        assert!(error.contains(FILE), "{text}: {error}");
        assert!(error.contains(expected), "{text}: {error}");
    }
}
