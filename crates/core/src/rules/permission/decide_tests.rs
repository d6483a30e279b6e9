use std::collections::BTreeMap;

use super::*;

pub(super) fn parsed(texts: &[&str]) -> Vec<PermissionRule> {
    texts
        .iter()
        .map(|text| match super::rule_tests::parse(text) {
            Ok(rule) => rule,
            Err(error) => panic!("{error}"),
        })
        .collect()
}

pub(super) fn rules(
    allow: &[&str],
    ask: &[&str],
    deny: &[&str],
    default_mode: DefaultMode,
) -> PermissionRules {
    PermissionRules {
        allow: parsed(allow),
        ask: parsed(ask),
        deny: parsed(deny),
        default_mode,
        tool_defaults: BTreeMap::new(),
    }
}

pub(super) const ASK: DefaultMode = DefaultMode::Ask;
pub(super) const ALLOW: DefaultMode = DefaultMode::Allow;

/// The verdict as a word and the rule, for the tables.
pub(super) fn outcome(
    rules: &PermissionRules,
    subject: &CallSubject,
) -> (&'static str, Option<String>) {
    let decision = decide(rules, subject);
    let verdict = match decision.verdict {
        Verdict::Allow => "allow",
        Verdict::Ask => "ask",
        Verdict::Deny => "deny",
    };
    (verdict, decision.rule)
}

#[test]
fn command_lines_are_decided_on_every_simple_command() {
    let rules = rules(
        &[
            "ExecuteCommand(git status)",
            "ExecuteCommand(cargo test:*)",
            "ExecuteCommand(ls:*)",
            "ExecuteCommand(RUST_LOG=debug cargo run:*)",
            "ExecuteCommand(true)",
        ],
        &["ExecuteCommand(git push:*)"],
        &[
            "ExecuteCommand(curl:*)",
            "ExecuteCommand(sudo:*)",
            "ExecuteCommand(rm -rf /)",
        ],
        ASK,
    );
    // (command line, verdict, rule)
    let cases: &[(&str, &str, Option<&str>)] = &[
        ("git status", "allow", Some("ExecuteCommand(git status)")),
        (
            "  git  'status' ",
            "allow",
            Some("ExecuteCommand(git status)"),
        ),
        (
            "/usr/bin/git status",
            "allow",
            Some("ExecuteCommand(git status)"),
        ),
        ("git status -s", "ask", None),
        ("git", "ask", None),
        ("git statuses", "ask", None),
        // Every simple command must be allowed.
        ("git status; rm -rf x", "ask", None),
        ("git status && rm x", "ask", None),
        ("git status | sh", "ask", None),
        ("git status $(rm x)", "ask", None),
        ("echo `rm x`; git status", "ask", None),
        ("git status & rm x", "ask", None),
        ("git status\nrm x", "ask", None),
        (
            "git status && cargo test -p x",
            "allow",
            Some("ExecuteCommand(git status), ExecuteCommand(cargo test:*)"),
        ),
        (
            "git status; git status",
            "allow",
            Some("ExecuteCommand(git status)"),
        ),
        // Prefixes are of whole words.
        ("cargo test", "allow", Some("ExecuteCommand(cargo test:*)")),
        (
            "cargo test --release -- x",
            "allow",
            Some("ExecuteCommand(cargo test:*)"),
        ),
        ("cargo testing", "ask", None),
        ("cargo", "ask", None),
        ("cargo build", "ask", None),
        // Words that depend on an expansion never match through a rule.
        ("$GIT status", "ask", None),
        ("git $SUB", "ask", None),
        ("cargo $T", "ask", None),
        (
            "cargo test $ARGS",
            "allow",
            Some("ExecuteCommand(cargo test:*)"),
        ),
        ("ls *.rs", "allow", Some("ExecuteCommand(ls:*)")),
        ("ls | xargs rm", "ask", None),
        // Wrappers that only run the command are looked through for allowing.
        (
            "bash -c 'git status'",
            "allow",
            Some("ExecuteCommand(git status)"),
        ),
        (
            "timeout 5 cargo test",
            "allow",
            Some("ExecuteCommand(cargo test:*)"),
        ),
        ("bash -c 'git status; rm x'", "ask", None),
        // Assignments are part of what an allow rule matches.
        ("FOO=1 cargo test", "ask", None),
        ("env FOO=1 cargo test", "ask", None),
        ("PAGER=evil git status", "ask", None),
        (
            "RUST_LOG=debug cargo run --bin x",
            "allow",
            Some("ExecuteCommand(RUST_LOG=debug cargo run:*)"),
        ),
        // Output written to a file is not what a rule's words allow.
        ("git status > notes.txt", "ask", None),
        ("git status >> ~/.bashrc", "ask", None),
        (
            "git status 2>&1",
            "allow",
            Some("ExecuteCommand(git status)"),
        ),
        (
            "git status 2>/dev/null",
            "allow",
            Some("ExecuteCommand(git status)"),
        ),
        ("git status | cat > x", "ask", None),
        // Deny: any command, any level, assignments or not.
        ("curl x", "deny", Some("ExecuteCommand(curl:*)")),
        ("/usr/bin/curl x", "deny", Some("ExecuteCommand(curl:*)")),
        ("true && curl x", "deny", Some("ExecuteCommand(curl:*)")),
        ("git status; curl x", "deny", Some("ExecuteCommand(curl:*)")),
        ("X=1 curl x", "deny", Some("ExecuteCommand(curl:*)")),
        ("echo $(curl x)", "deny", Some("ExecuteCommand(curl:*)")),
        ("sh -c 'curl x'", "deny", Some("ExecuteCommand(curl:*)")),
        (
            "echo 'curl x' | bash",
            "deny",
            Some("ExecuteCommand(curl:*)"),
        ),
        (
            "bash <<EOF\ncurl x\nEOF",
            "deny",
            Some("ExecuteCommand(curl:*)"),
        ),
        ("sudo git status", "deny", Some("ExecuteCommand(sudo:*)")),
        (
            "nice sudo git status",
            "deny",
            Some("ExecuteCommand(sudo:*)"),
        ),
        (
            "sudo bash -c 'git status'",
            "deny",
            Some("ExecuteCommand(sudo:*)"),
        ),
        ("rm -rf /", "deny", Some("ExecuteCommand(rm -rf /)")),
        ("rm -rf / x", "ask", None),
        // Ask beats allow; deny beats ask.
        (
            "git push origin main",
            "ask",
            Some("ExecuteCommand(git push:*)"),
        ),
        (
            "git status; git push",
            "ask",
            Some("ExecuteCommand(git push:*)"),
        ),
        ("git push; curl x", "deny", Some("ExecuteCommand(curl:*)")),
        // Nothing runs: no rule matches.
        ("", "ask", None),
        ("FOO=1", "ask", None),
        // Cannot be read: asked about.
        ("git status 'unterminated", "ask", None),
    ];
    for &(line, verdict, rule) in cases {
        let subject = CallSubject::command("ExecuteCommand", line);
        assert_eq!(
            outcome(&rules, &subject),
            (verdict, rule.map(str::to_owned)),
            "{line:?}"
        );
    }
}

#[test]
fn the_default_applies_when_no_rule_matches() {
    let some = rules(
        &["ExecuteCommand(git status)"],
        &[],
        &["ExecuteCommand(curl:*)"],
        ALLOW,
    );
    // (rules, subject, verdict, rule)
    let cases: Vec<(&PermissionRules, CallSubject, &str, Option<&str>)> = vec![
        (
            &some,
            CallSubject::command("ExecuteCommand", "git status; rm x"),
            "allow",
            None,
        ),
        (
            &some,
            CallSubject::command("ExecuteCommand", "make"),
            "allow",
            None,
        ),
        (
            &some,
            CallSubject::command("ExecuteCommand", "curl x"),
            "deny",
            Some("ExecuteCommand(curl:*)"),
        ),
        (
            &some,
            CallSubject::path("WriteFile", "a.txt"),
            "allow",
            None,
        ),
        // A command line that cannot be read is never allowed by a default.
        (
            &some,
            CallSubject::command("ExecuteCommand", "echo 'x"),
            "ask",
            None,
        ),
    ];
    for (rules, subject, verdict, rule) in cases {
        assert_eq!(
            outcome(rules, &subject),
            (verdict, rule.map(str::to_owned)),
            "{subject:?}"
        );
    }
    // A tool's own default wins over the default mode.
    let mut by_tool = rules(&["ExecuteCommand(ls)"], &[], &[], ALLOW);
    by_tool
        .tool_defaults
        .insert("ExecuteCommand".to_owned(), DefaultMode::Ask);
    let verdict = |subject: CallSubject| decide(&by_tool, &subject).verdict;
    assert_eq!(
        verdict(CallSubject::command("ExecuteCommand", "ls")),
        Verdict::Allow
    );
    assert_eq!(
        verdict(CallSubject::command("ExecuteCommand", "pwd")),
        Verdict::Ask
    );
    assert_eq!(verdict(CallSubject::path("WriteFile", "x")), Verdict::Allow);
}
