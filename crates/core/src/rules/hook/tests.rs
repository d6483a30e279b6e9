use serde_json::json;

use super::*;

#[test]
fn events_parse_by_their_exact_names() {
    for event in HookEvent::ALL {
        assert_eq!(HookEvent::parse(event.name()), Some(event));
    }
    for unknown in ["pretooluse", "PreTool", "", "Notification"] {
        assert_eq!(HookEvent::parse(unknown), None, "{unknown}");
    }
    assert!(HookEvent::PreToolUse.matches_tools());
    assert!(!HookEvent::Stop.matches_tools());
}

#[test]
fn matchers_select_tools() {
    let cases: &[(&str, &str, bool)] = &[
        ("", "ExecuteCommand", true),
        ("*", "mcp__files__read", true),
        ("ExecuteCommand|WriteFile", "WriteFile", true),
        ("ExecuteCommand|WriteFile", "ExecuteCommand", true),
        ("ExecuteCommand|WriteFile", "ReadFile", false),
        ("Write", "WriteFile", false),
        ("mcp__files__.*", "mcp__files__read", true),
        ("mcp__files__.*", "mcp__other__read", false),
        ("Write.*", "WriteFile", true),
        (".*File", "FileList", false),
    ];
    for (matcher, tool, expected) in cases {
        let parsed = Matcher::parse(matcher).unwrap();
        assert_eq!(parsed.matches(tool), *expected, "{matcher} on {tool}");
    }
}

#[test]
fn a_bad_matcher_is_an_error_naming_it() {
    let error = Matcher::parse("Write(").unwrap_err();
    assert_eq!(error.matcher, "Write(");
    assert!(error.to_string().contains("not a valid regular expression"));
}

#[test]
fn exit_codes_mean_go_on_block_or_warn() {
    let cmd = "check.sh";
    let event = HookEvent::PreToolUse;
    let blocked = interpret(event, cmd, HookExit::Code(2), "", "no rm here\n");
    assert_eq!(blocked.decision, Some(HookDecision::Block));
    assert_eq!(blocked.reason.as_deref(), Some("no rm here"));
    let silent = interpret(event, cmd, HookExit::Code(2), "", "");
    assert_eq!(
        silent.reason.as_deref(),
        Some("blocked by the PreToolUse hook `check.sh`")
    );
    assert_eq!(
        interpret(event, cmd, HookExit::Code(0), "", "x"),
        HookResult::default()
    );
    let cases: &[(HookExit, &str)] = &[
        (HookExit::Code(1), "exited with 1: oops"),
        (HookExit::Signalled, "was ended by a signal: oops"),
        (
            HookExit::TimedOut(5),
            "took longer than 5 s and was killed: oops",
        ),
        (
            HookExit::Cancelled,
            "was stopped: the turn was cancelled: oops",
        ),
    ];
    for (exit, expected) in cases {
        let result = interpret(event, cmd, *exit, "{\"decision\":\"deny\"}", "oops");
        assert_eq!(result.decision, None);
        let warning = result.warning.unwrap();
        assert!(warning.contains(expected), "{warning}");
    }
}

#[test]
fn json_output_is_read_at_the_top_or_in_hook_specific_output() {
    let event = HookEvent::PreToolUse;
    let read = |stdout: &str| interpret(event, "h", HookExit::Code(0), stdout, "");
    let cases: &[(&str, Option<HookDecision>, Option<&str>)] = &[
        (
            r#"{"decision":"block","reason":"r"}"#,
            Some(HookDecision::Block),
            Some("r"),
        ),
        (r#"{"decision":"approve"}"#, Some(HookDecision::Allow), None),
        (
            r#"{"permissionDecision":"ask","reason":"why"}"#,
            Some(HookDecision::Ask),
            Some("why"),
        ),
        (
            r#"{"hookSpecificOutput":{"permissionDecision":"deny","permissionDecisionReason":"p"}}"#,
            Some(HookDecision::Block),
            Some("p"),
        ),
        (
            r#"{"permissionDecision":"allow"}"#,
            Some(HookDecision::Allow),
            None,
        ),
        ("{}", None, None),
    ];
    for (stdout, decision, reason) in cases {
        let result = read(stdout);
        assert_eq!(result.decision, *decision, "{stdout}");
        assert_eq!(result.reason.as_deref(), *reason, "{stdout}");
        assert_eq!(result.warning, None, "{stdout}");
    }
    let updated = read(r#"{"updatedInput":{"command":"ls"},"additionalContext":"c"}"#);
    assert_eq!(
        updated.updated_input.map(serde_json::Value::Object),
        Some(json!({"command": "ls"}))
    );
    assert_eq!(updated.additional_context.as_deref(), Some("c"));
    let stop = read(r#"{"continue":false,"stopReason":"enough"}"#);
    assert_eq!(stop.stop.as_deref(), Some("enough"));
    assert!(
        read(r#"{"decision":"maybe"}"#)
            .warning
            .unwrap()
            .contains("\"maybe\"")
    );
    assert!(
        read("{not json")
            .warning
            .unwrap()
            .contains("not a JSON object")
    );
}

#[test]
fn plain_output_is_context_only_for_prompts_and_session_starts() {
    let plain = |event| interpret(event, "h", HookExit::Code(0), "today is Monday\n", "");
    assert_eq!(
        plain(HookEvent::UserPromptSubmit)
            .additional_context
            .as_deref(),
        Some("today is Monday")
    );
    assert_eq!(
        plain(HookEvent::SessionStart).additional_context.as_deref(),
        Some("today is Monday")
    );
    assert_eq!(plain(HookEvent::PreToolUse), HookResult::default());
}

#[test]
fn combined_block_wins_and_texts_join() {
    let result = |decision, reason: &str, context: Option<&str>| HookResult {
        decision,
        reason: Some(reason.to_owned()),
        additional_context: context.map(str::to_owned),
        ..HookResult::default()
    };
    let all = combine(vec![
        result(Some(HookDecision::Allow), "a", Some("one")),
        result(Some(HookDecision::Block), "b", None),
        result(Some(HookDecision::Ask), "c", Some("two")),
        result(None, "d", None),
    ]);
    assert_eq!(all.decision, Some(HookDecision::Block));
    assert_eq!(all.reason.as_deref(), Some("b"));
    assert_eq!(all.additional_context.as_deref(), Some("one\ntwo"));
    assert_eq!(combine(Vec::new()), HookResult::default());
}

#[test]
fn stop_hooks_continue_a_bounded_number_of_times() {
    let allowed: Vec<bool> = (0..=MAX_STOP_CONTINUATIONS).map(may_continue).collect();
    assert_eq!(allowed, [true, true, true, false]);
}

#[test]
fn the_input_carries_the_event_and_ids() {
    let mut input = HookInput::new(
        HookEvent::PreToolUse,
        "/ws".into(),
        Some("c1".into()),
        Some("t1".into()),
    );
    input.tool_name = Some("ExecuteCommand".into());
    input.tool_input = Some(json!({"command": "ls"}));
    assert_eq!(
        serde_json::to_value(&input).unwrap(),
        json!({"hook_event_name": "PreToolUse", "session_id": "c1", "conversation_id": "c1",
               "turn_id": "t1", "cwd": "/ws", "tool_name": "ExecuteCommand",
               "tool_input": {"command": "ls"}})
    );
}

#[test]
fn combined_runs_keep_every_hooks_run_in_order() {
    let run = |command: &str| crate::entities::HookRun {
        conversation_id: crate::ids::ConversationId::new(),
        turn_id: None,
        event: "PreToolUse".to_owned(),
        tool_name: None,
        call_id: None,
        command: command.to_owned(),
        exit_code: Some(0),
        duration_ms: 1,
        decision: String::new(),
        at: chrono::Utc::now(),
    };
    let with = |command: &str| HookResult {
        runs: vec![run(command)],
        ..HookResult::default()
    };
    let all = combine(vec![with("a"), HookResult::default(), with("b")]);
    let commands: Vec<_> = all.runs.iter().map(|r| r.command.as_str()).collect();
    assert_eq!(commands, ["a", "b"]);
}
