use smallebot_core::rules::permission::{CallSubject, Verdict, decide};

use super::*;
use crate::config::AgentSettings;

const FILE: &str = "/h/agent.json";

fn settings(text: &str) -> Result<AgentSettings, String> {
    AgentSettings::from_json(text, Path::new(FILE)).map_err(|error| error.to_string())
}

fn texts(rules: &[PermissionRule]) -> Vec<&str> {
    rules.iter().map(PermissionRule::text).collect()
}

#[test]
fn the_three_lists_and_the_default_mode_are_read() -> Result<(), String> {
    let got = settings(
        r#"{"permissions": {
            "allow": ["ExecuteCommand(cargo test:*)", "WriteFile(docs/**)", "mcp__files__read_*"],
            "ask": ["ExecuteCommand(git push:*)", "Delegate(researcher)"],
            "deny": ["ExecuteCommand(curl:*)", "ReadFile(**/.env)", "mcp__files"],
            "defaultMode": "ask"
        }}"#,
    )?
    .permissions;
    assert_eq!(
        texts(&got.allow),
        [
            "ExecuteCommand(cargo test:*)",
            "WriteFile(docs/**)",
            "mcp__files__read_*"
        ]
    );
    assert_eq!(
        texts(&got.ask),
        ["ExecuteCommand(git push:*)", "Delegate(researcher)"]
    );
    assert_eq!(
        texts(&got.deny),
        ["ExecuteCommand(curl:*)", "ReadFile(**/.env)", "mcp__files"]
    );
    assert_eq!(got.default_mode, DefaultMode::Ask);
    Ok(())
}

#[test]
fn left_out_keys_mean_no_rules_and_allow() -> Result<(), String> {
    for text in [
        "{}",
        r#"{"permissions": {}}"#,
        r#"{"Permissions": {"Allow": []}}"#,
    ] {
        let got = settings(text)?.permissions;
        assert_eq!(got, PermissionRules::default(), "{text}");
        assert_eq!(got.default_mode, DefaultMode::Allow, "{text}");
    }
    Ok(())
}

#[test]
fn bad_permissions_are_errors_naming_the_file_position_list_and_rule() {
    // (agent.json, the start of the error)
    let cases: &[(&str, &str)] = &[
        (
            "{\"permissions\": {\"deny\": [\"ExecuteCommand(curl:*)\",\n  \"WriteFile(/etc/**)\"]}}",
            "/h/agent.json:2:3: permissions.deny[1]: permission rule `WriteFile(/etc/**)` is \
             invalid: `/etc/**` is not relative to the workspace",
        ),
        (
            "{\"permissions\": {\"allow\": [\"ExecuteCommand(git status; rm x)\"]}}",
            "/h/agent.json:1:28: permissions.allow[0]: permission rule \
             `ExecuteCommand(git status; rm x)` is invalid: `git status; rm x` is not one \
             simple command",
        ),
        (
            "{\"permissions\": {\"ask\": [\"Bash(ls)\"]}}",
            "/h/agent.json:1:26: permissions.ask[0]: permission rule `Bash(ls)` names the \
             tool `Bash`, which does not exist; the tools are ReadFile, WriteFile,",
        ),
        (
            "{\"permissions\": {\"allow\": [\"GetCurrentTime(now)\"]}}",
            "/h/agent.json:1:28: permissions.allow[0]: permission rule \
             `GetCurrentTime(now)` is invalid: `GetCurrentTime` takes no pattern",
        ),
        (
            "{\"permissions\": {\"allow\": [\"\"]}}",
            "/h/agent.json:1:28: permissions.allow[0]: permission rule `` is invalid: the \
             rule is empty",
        ),
        (
            "{\"permissions\": {\"defaultMode\": \"sometimes\"}}",
            "/h/agent.json:1:",
        ),
        (
            "{\"permissions\": {\"alow\": []}}",
            "/h/agent.json:1:18: unknown key \"alow\" in the permission settings; did you \
             mean \"allow\"?",
        ),
        (
            "{\"permissions\": {\"allow\": \"ReadFile\"}}",
            "/h/agent.json:1:",
        ),
        ("{\"permissions\": [\"ReadFile\"]}", "/h/agent.json:1:"),
    ];
    for &(text, want) in cases {
        match settings(text) {
            Err(error) => assert!(error.starts_with(want), "{text}:\n{error}\nwanted {want}"),
            Ok(got) => panic!("{text}: accepted as {:?}", got.permissions),
        }
    }
    let Err(error) = settings(r#"{"permissions": {"defaultMode": "sometimes"}}"#) else {
        panic!("an unknown defaultMode is accepted");
    };
    assert!(
        error.contains("unknown variant `sometimes`, expected `ask` or `allow`"),
        "{error}"
    );
}

#[test]
fn the_terminal_whitelist_and_confirmation_map_onto_rules() -> Result<(), ConfigError> {
    let terminal = TerminalSettings {
        require_command_confirmation: true,
        command_whitelist: vec![
            "git status".to_owned(),
            "  ls   -la ".to_owned(),
            "grep 'a b' notes.txt".to_owned(),
            "make && make install".to_owned(),
            "RUST_LOG=debug cargo run".to_owned(),
            "git status".to_owned(),
        ],
        ..TerminalSettings::default()
    };
    let agent = PermissionRules {
        allow: vec![
            PermissionRule::parse("ReadFile", &permission_argument).map_err(|e| rule_error(&e))?,
        ],
        ..PermissionRules::default()
    };
    let rules = with_terminal_rules(agent, &terminal, Path::new("/h/terminal.json"))?;
    assert_eq!(
        texts(&rules.allow),
        [
            "ReadFile",
            "ExecuteCommand(git status)",
            "ExecuteCommand(ls -la)",
            "ExecuteCommand(grep 'a b' notes.txt)",
            "ExecuteCommand(make)",
            "ExecuteCommand(make install)",
            "ExecuteCommand(RUST_LOG=debug cargo run)",
        ]
    );
    assert_eq!(
        rules.tool_defaults.get(ExecuteCommand::NAME),
        Some(&DefaultMode::Ask)
    );
    // (command, verdict): whitelisted commands run, others are asked about.
    let cases: &[(&str, Verdict)] = &[
        ("git status", Verdict::Allow),
        ("ls -la", Verdict::Allow),
        ("ls", Verdict::Ask),
        ("git status; rm x", Verdict::Ask),
        ("grep \"a b\" notes.txt", Verdict::Allow),
        ("make install", Verdict::Allow),
        ("RUST_LOG=debug cargo run", Verdict::Allow),
        ("cargo run", Verdict::Ask),
    ];
    for &(line, verdict) in cases {
        let decision = decide(&rules, &CallSubject::command(ExecuteCommand::NAME, line));
        assert_eq!(decision.verdict, verdict, "{line}");
    }
    // Other tools keep the default mode.
    let other = decide(&rules, &CallSubject::path("WriteFile", "x"));
    assert_eq!(other.verdict, Verdict::Allow);
    // Without confirmation, ExecuteCommand has no default of its own.
    let quiet = TerminalSettings {
        command_whitelist: vec!["ls".to_owned()],
        ..TerminalSettings::default()
    };
    let rules = with_terminal_rules(
        PermissionRules::default(),
        &quiet,
        Path::new("/h/terminal.json"),
    )?;
    assert!(rules.tool_defaults.is_empty());
    assert_eq!(texts(&rules.allow), ["ExecuteCommand(ls)"]);
    Ok(())
}

#[test]
fn whitelist_entries_no_rule_can_match_are_errors_naming_terminal_json() {
    // (entry, part of the message)
    let cases: &[(&str, &str)] = &[
        ("ls *.rs", "`*.rs` is only known when the command runs"),
        ("rm -rf $DIR", "`$DIR` is only known when the command runs"),
        (
            "echo $(date)",
            "`$(date)` is only known when the command runs",
        ),
        ("echo 'x", "could not parse"),
        (
            "git log > log.txt",
            "it writes its output to `log.txt`, which no rule allows",
        ),
    ];
    for &(entry, want) in cases {
        let terminal = TerminalSettings {
            command_whitelist: vec![entry.to_owned()],
            ..TerminalSettings::default()
        };
        match with_terminal_rules(
            PermissionRules::default(),
            &terminal,
            Path::new("/h/terminal.json"),
        ) {
            Err(error) => {
                let error = error.to_string();
                let head = format!(
                    "/h/terminal.json: commandWhitelist entry `{entry}` cannot be an \
                     ExecuteCommand rule: "
                );
                assert!(error.starts_with(&head), "{entry}: {error}");
                assert!(error.contains(want), "{entry}: {error}");
            }
            Ok(rules) => panic!("{entry}: mapped to {:?}", texts(&rules.allow)),
        }
    }
}

fn rule_error(error: &smallebot_core::rules::permission::PermissionRuleError) -> ConfigError {
    ConfigError::Rule {
        file: "test".into(),
        message: error.to_string(),
    }
}
