use std::path::Path;

use super::*;

fn parsed(text: &str) -> Result<HooksConfig, String> {
    hooks_from_json(text, Path::new("/home/me/hooks.json")).map_err(|e| e.to_string())
}

#[test]
fn entries_are_read_by_event_with_defaults() {
    let config = parsed(
        r#"{"hooks": {
            "PreToolUse": [{"matcher": "ExecuteCommand|WriteFile",
                            "hooks": [{"type": "command", "command": "check", "timeout": 5}]}],
            "Stop": [{"hooks": [{"type": "command", "command": "again"}]}]
        }}"#,
    )
    .unwrap();
    let pre = config.commands(HookEvent::PreToolUse, Some("WriteFile"));
    assert_eq!(
        pre,
        [&HookCommand {
            command: "check".into(),
            timeout: Duration::from_secs(5)
        }]
    );
    assert!(
        config
            .commands(HookEvent::PreToolUse, Some("ReadFile"))
            .is_empty()
    );
    let stop = config.commands(HookEvent::Stop, None);
    assert_eq!(
        stop[0].timeout,
        Duration::from_secs(DEFAULT_HOOK_TIMEOUT_SECONDS)
    );
    assert!(
        config
            .commands(HookEvent::PostToolUse, Some("X"))
            .is_empty()
    );
    assert!(!config.is_empty());
    assert!(parsed("{}").unwrap().is_empty());
}

#[test]
fn mistakes_are_errors_naming_the_file_and_the_entry() {
    let hook = r#"{"type": "command", "command": "x"}"#;
    let cases: Vec<(String, &str)> = vec![
        (
            format!(r#"{{"hooks": {{"PreTool": [{{"hooks": [{hook}]}}]}}}}"#),
            "hooks.PreTool: unknown event; the events are SessionStart,",
        ),
        (
            format!(r#"{{"hooks": {{"PreToolUse": [{{"matcher": "Write(", "hooks": [{hook}]}}]}}}}"#),
            "hooks.PreToolUse[0].matcher: the matcher \"Write(\" is not a valid regular expression",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "prompt", "command": "x"}]}]}}"#.into(),
            "hooks.Stop[0].hooks[0].type: unknown type \"prompt\"",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command"}]}]}}"#.into(),
            "hooks.Stop[0].hooks[0].command: expected a command line",
        ),
        (
            r#"{"hooks": {"Stop": [{"hooks": [{"type": "command", "command": "x", "timeout": 0}]}]}}"#.into(),
            "hooks.Stop[0].hooks[0].timeout: expected whole seconds from 1 to 3600, got 0",
        ),
        (
            format!(r#"{{"hooks": {{"Stop": [{{"matcher": "Bash", "hooks": [{hook}]}}]}}}}"#),
            "hooks.Stop[0].matcher: Stop has no tools to match",
        ),
        (
            format!(r#"{{"hooks": {{"Stop": [{{"hook": [{hook}]}}]}}}}"#),
            "hooks.Stop[0]: expected \"hooks\", a list of hooks",
        ),
        (r#"{"Stop": []}"#.into(), "expected the key \"hooks\""),
    ];
    for (text, expected) in cases {
        let error = parsed(&text).unwrap_err();
        assert!(error.starts_with("/home/me/hooks.json: "), "{error}");
        assert!(error.contains(expected), "{error}\nexpected: {expected}");
    }
    assert!(
        parsed("{\"hooks\": ")
            .unwrap_err()
            .starts_with("/home/me/hooks.json:1:")
    );
}
