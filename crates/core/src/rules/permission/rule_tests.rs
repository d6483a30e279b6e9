use super::*;

/// What the agent's tools take, for the tests.
pub(super) fn kind_of(tool: &str) -> ArgumentKind {
    match tool {
        "ExecuteCommand" => ArgumentKind::Command,
        "Delegate" => ArgumentKind::Agent,
        "ReadMcpResource" => ArgumentKind::Resource,
        "ReadFile" | "WriteFile" | "AppendFile" | "ListFiles" | "CreateDirectory"
        | "GrepContent" => ArgumentKind::Path,
        _ => ArgumentKind::None,
    }
}

/// A rule parsed with [`kind_of`].
pub(super) fn parse(text: &str) -> Result<PermissionRule, PermissionRuleError> {
    PermissionRule::parse(text, &kind_of)
}

#[test]
fn well_formed_rules_parse() {
    // (text, tool, whether it has no pattern)
    let cases: &[(&str, &str, bool)] = &[
        ("ReadFile", "ReadFile", true),
        ("  ExecuteCommand  ", "ExecuteCommand", true),
        ("ExecuteCommand(git status)", "ExecuteCommand", false),
        ("ExecuteCommand (git status)", "ExecuteCommand", false),
        ("ExecuteCommand(cargo test:*)", "ExecuteCommand", false),
        ("ExecuteCommand(git:*)", "ExecuteCommand", false),
        ("ExecuteCommand('my tool' --flag)", "ExecuteCommand", false),
        ("ExecuteCommand(grep 'a|b' f)", "ExecuteCommand", false),
        (
            "ExecuteCommand(RUST_LOG=debug cargo test:*)",
            "ExecuteCommand",
            false,
        ),
        ("WriteFile(docs/**)", "WriteFile", false),
        ("AppendFile(*.log)", "AppendFile", false),
        ("ReadFile(**/.env)", "ReadFile", false),
        ("CreateDirectory(build/)", "CreateDirectory", false),
        ("ListFiles(src)", "ListFiles", false),
        ("GrepContent(src/**)", "GrepContent", false),
        ("Delegate(researcher)", "Delegate", false),
        ("Delegate", "Delegate", true),
        ("GetCurrentTime", "GetCurrentTime", true),
        ("mcp__files", "mcp__files", true),
        ("mcp__files__*", "mcp__files__*", true),
        ("mcp__files__read_?", "mcp__files__read_?", true),
        ("mcp__my-server.v2__do_it", "mcp__my-server.v2__do_it", true),
    ];
    for &(text, tool, bare) in cases {
        match parse(text) {
            Ok(rule) => {
                assert_eq!(rule.tool(), tool, "{text}");
                assert_eq!(rule.is_bare(), bare, "{text}");
                assert_eq!(rule.text(), text.trim(), "{text}");
                assert_eq!(rule.is_mcp(), tool.starts_with("mcp__"), "{text}");
            }
            Err(error) => panic!("{text}: {error}"),
        }
    }
}

#[test]
fn malformed_rules_say_what_is_wrong() {
    // (text, part of the message)
    let cases: &[(&str, &str)] = &[
        ("", "the rule is empty"),
        ("   ", "the rule is empty"),
        ("(git status)", "the tool name is missing"),
        ("ExecuteCommand(git status", "the pattern is not closed"),
        ("ExecuteCommand(git) x", "the pattern is not closed"),
        ("ExecuteCommand)", "`)` without `(`"),
        ("Read File", "is not a tool name"),
        ("1Tool", "is not a tool name"),
        ("Write*", "only MCP tool names"),
        ("mcp__", "names no MCP server"),
        ("mcp____x", "names no MCP server"),
        ("mcp__files__a b", "contains ` `"),
        ("mcp__files__*(x)", "MCP tool rules take no pattern"),
        ("GetCurrentTime(x)", "`GetCurrentTime` takes no pattern"),
        ("ExecuteCommand()", "the command pattern is empty"),
        ("ExecuteCommand(:*)", "the command pattern is empty"),
        (
            "ExecuteCommand(git status; rm x)",
            "is not one simple command",
        ),
        (
            "ExecuteCommand(git status && rm x)",
            "is not one simple command",
        ),
        ("ExecuteCommand(curl x | sh)", "is not one simple command"),
        ("ExecuteCommand(git log > out)", "is not one simple command"),
        ("ExecuteCommand(echo $(date))", "is not one simple command"),
        ("ExecuteCommand(echo 'x)", "could not parse"),
        ("ExecuteCommand(rm $DIR)", "`$DIR` depends on an expansion"),
        (
            "ExecuteCommand(git *)",
            "`*` depends on an expansion or is a glob",
        ),
        ("WriteFile()", "the path pattern is empty"),
        ("WriteFile(/etc/**)", "not relative to the workspace"),
        ("WriteFile(../x)", "climbs out"),
        ("WriteFile(docs**)", "`**` must be a whole path part"),
        ("Delegate()", "the agent name is empty"),
        ("Delegate(Research Bot)", "the agent name is not valid"),
    ];
    for &(text, want) in cases {
        match parse(text) {
            Err(PermissionRuleError::Invalid { rule, reason }) => {
                assert_eq!(rule, text.trim(), "{text}");
                assert!(reason.contains(want), "{text}: {reason}");
            }
            Ok(rule) => panic!("{text} parsed as {rule:?}"),
        }
    }
    let shown = parse("WriteFile(/x)").map_err(|e| e.to_string());
    assert!(
        matches!(&shown, Err(m) if m.starts_with("permission rule `WriteFile(/x)` is invalid: ")),
        "{shown:?}"
    );
}

#[test]
fn exact_command_rules_quote_their_words() {
    // (words, the rule's text)
    let cases: &[(&[&str], Result<&str, &str>)] = &[
        (&["git", "status"], Ok("ExecuteCommand(git status)")),
        (&["grep", "a b", "f"], Ok("ExecuteCommand(grep 'a b' f)")),
        (&["echo", "it's"], Ok("ExecuteCommand(echo 'it'\\''s')")),
        (
            &["RUST_LOG=debug", "cargo", "run"],
            Ok("ExecuteCommand(RUST_LOG=debug cargo run)"),
        ),
        (&["echo", "a:*"], Ok("ExecuteCommand(echo 'a:*')")),
        (
            &["echo", "$HOME", ""],
            Ok("ExecuteCommand(echo '$HOME' '')"),
        ),
        (&[], Err("the command pattern is empty")),
        (&["a\0b"], Err("contains a NUL character")),
    ];
    for &(words, expected) in cases {
        match (
            PermissionRule::exact_command("ExecuteCommand", words),
            expected,
        ) {
            (Ok(rule), Ok(text)) => {
                assert_eq!(rule.text(), text, "{words:?}");
                // It matches exactly those words, and only them.
                let literal: Vec<smallebot_shell::ShellWord> = words
                    .iter()
                    .map(|w| smallebot_shell::ShellWord {
                        text: (*w).to_owned(),
                        literal: true,
                    })
                    .collect();
                let all: Vec<&smallebot_shell::ShellWord> = literal.iter().collect();
                assert!(rule.matches_words(&all), "{words:?}");
                assert!(!rule.matches_words(&all[..all.len() - 1]), "{words:?}");
            }
            (Err(PermissionRuleError::Invalid { reason, .. }), Err(want)) => {
                assert!(reason.contains(want), "{words:?}: {reason}");
            }
            (got, _) => panic!("{words:?}: got {got:?}"),
        }
    }
}

#[test]
fn resource_rules_need_a_server_and_a_uri() {
    let cases = [
        ("ReadMcpResource(docs:note://*)", true),
        ("ReadMcpResource(docs:file:///a?c)", true),
        ("ReadMcpResource", true),
        ("ReadMcpResource(note)", false),
        ("ReadMcpResource(:note://a)", false),
        ("ReadMcpResource(docs:)", false),
        ("ReadMcpResource(d*:note://a)", false),
    ];
    for (text, ok) in cases {
        assert_eq!(parse(text).is_ok(), ok, "{text}");
    }
}
