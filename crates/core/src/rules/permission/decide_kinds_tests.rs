//! Decisions on calls other than command lines: rules without a pattern, paths,
//! agents and MCP tools.

use super::decide_tests::{ASK, outcome, rules};
use super::*;

#[test]
fn rules_without_a_pattern_cover_every_call_of_their_tool() {
    let rules = rules(
        &["ExecuteCommand", "ReadFile"],
        &["WriteFile"],
        &["Delegate"],
        ASK,
    );
    let cases: &[(CallSubject, &str, Option<&str>)] = &[
        (
            CallSubject::command("ExecuteCommand", "rm -rf x; make"),
            "allow",
            Some("ExecuteCommand"),
        ),
        (
            CallSubject::command("ExecuteCommand", "echo 'x"),
            "allow",
            Some("ExecuteCommand"),
        ),
        (
            CallSubject::command("ExecuteCommand", ""),
            "allow",
            Some("ExecuteCommand"),
        ),
        (
            CallSubject::path("ReadFile", "a/b"),
            "allow",
            Some("ReadFile"),
        ),
        (
            CallSubject::path("WriteFile", "a/b"),
            "ask",
            Some("WriteFile"),
        ),
        (
            CallSubject::agent("Delegate", "researcher"),
            "deny",
            Some("Delegate"),
        ),
        (CallSubject::tool("GetCurrentTime"), "ask", None),
    ];
    for (subject, verdict, rule) in cases {
        assert_eq!(
            outcome(&rules, subject),
            (*verdict, rule.map(str::to_owned)),
            "{subject:?}"
        );
    }
}

#[test]
fn paths_agents_and_mcp_tools() {
    let rules = rules(
        &[
            "WriteFile(docs/**)",
            "ReadFile(**)",
            "Delegate(researcher)",
            "mcp__files__read_*",
            "mcp__search",
        ],
        &["WriteFile(docs/secret/**)", "mcp__files__read_secret"],
        &[
            "ReadFile(**/.env)",
            "WriteFile(*.lock)",
            "mcp__files__delete?",
        ],
        ASK,
    );
    let cases: &[(CallSubject, &str, Option<&str>)] = &[
        (
            CallSubject::path("WriteFile", "docs/a.md"),
            "allow",
            Some("WriteFile(docs/**)"),
        ),
        (
            CallSubject::path("WriteFile", "docs/x/y.md"),
            "allow",
            Some("WriteFile(docs/**)"),
        ),
        (CallSubject::path("WriteFile", "src/a.rs"), "ask", None),
        (
            CallSubject::path("WriteFile", "docs/secret/k"),
            "ask",
            Some("WriteFile(docs/secret/**)"),
        ),
        (
            CallSubject::path("WriteFile", "Cargo.lock"),
            "deny",
            Some("WriteFile(*.lock)"),
        ),
        (
            CallSubject::path("WriteFile", "sub/Cargo.lock"),
            "ask",
            None,
        ),
        (CallSubject::path("AppendFile", "docs/a.md"), "ask", None),
        (
            CallSubject::path("ReadFile", "src/main.rs"),
            "allow",
            Some("ReadFile(**)"),
        ),
        (
            CallSubject::path("ReadFile", ".env"),
            "deny",
            Some("ReadFile(**/.env)"),
        ),
        (
            CallSubject::path("ReadFile", "a/b/.env"),
            "deny",
            Some("ReadFile(**/.env)"),
        ),
        (CallSubject::tool("ReadFile"), "ask", None),
        (
            CallSubject::agent("Delegate", "researcher"),
            "allow",
            Some("Delegate(researcher)"),
        ),
        (CallSubject::agent("Delegate", "researcher2"), "ask", None),
        (
            CallSubject::tool("mcp__files__read_file"),
            "allow",
            Some("mcp__files__read_*"),
        ),
        (
            CallSubject::tool("mcp__files__read_secret"),
            "ask",
            Some("mcp__files__read_secret"),
        ),
        (CallSubject::tool("mcp__files__write"), "ask", None),
        (
            CallSubject::tool("mcp__files__deleteX"),
            "deny",
            Some("mcp__files__delete?"),
        ),
        (CallSubject::tool("mcp__files__delete"), "ask", None),
        (
            CallSubject::tool("mcp__search__query"),
            "allow",
            Some("mcp__search"),
        ),
        (CallSubject::tool("mcp__searcher__query"), "ask", None),
        (CallSubject::tool("mcp__files2__read_x"), "ask", None),
        // A pattern of another kind never matches.
        (CallSubject::agent("WriteFile", "docs"), "ask", None),
    ];
    for (subject, verdict, rule) in cases {
        assert_eq!(
            outcome(&rules, subject),
            (*verdict, rule.map(str::to_owned)),
            "{subject:?}"
        );
    }
}

#[test]
fn a_recursive_read_is_stopped_by_what_it_may_reach_and_allowed_by_what_covers_it() {
    let rules = rules(
        &["GrepContent(docs/**)", "ListFiles(**)"],
        &["GrepContent(notes/**)"],
        &["GrepContent(secrets/**)", "ListFiles(**/.ssh/**)"],
        ASK,
    );
    let cases: &[(CallSubject, &str, Option<&str>)] = &[
        // The whole workspace reaches secrets/: denied, never allowed by docs/**.
        (
            CallSubject::tree("GrepContent", ""),
            "deny",
            Some("GrepContent(secrets/**)"),
        ),
        (
            CallSubject::tree("GrepContent", "secrets/old"),
            "deny",
            Some("GrepContent(secrets/**)"),
        ),
        (
            CallSubject::tree("GrepContent", "docs"),
            "allow",
            Some("GrepContent(docs/**)"),
        ),
        (
            CallSubject::tree("GrepContent", "docs/api"),
            "allow",
            Some("GrepContent(docs/**)"),
        ),
        (
            CallSubject::tree("GrepContent", "notes"),
            "ask",
            Some("GrepContent(notes/**)"),
        ),
        (CallSubject::tree("GrepContent", "src"), "ask", None),
        // `**/.ssh/**` may lie anywhere below: every listing may reach it.
        (
            CallSubject::tree("ListFiles", "src"),
            "deny",
            Some("ListFiles(**/.ssh/**)"),
        ),
    ];
    for (subject, verdict, rule) in cases {
        assert_eq!(
            outcome(&rules, subject),
            (*verdict, rule.map(str::to_owned)),
            "{subject:?}"
        );
    }
}

#[test]
fn resource_rules_match_server_and_uri_by_glob() {
    let rules = rules(
        &["ReadMcpResource(docs:note://*)"],
        &[],
        &["ReadMcpResource(docs:note://secret*)"],
        ASK,
    );
    let cases: &[(CallSubject, &str, Option<&str>)] = &[
        (
            CallSubject::resource("ReadMcpResource", "docs", "note://readme"),
            "allow",
            Some("ReadMcpResource(docs:note://*)"),
        ),
        (
            CallSubject::resource("ReadMcpResource", "docs", "note://secret/keys"),
            "deny",
            Some("ReadMcpResource(docs:note://secret*)"),
        ),
        (
            CallSubject::resource("ReadMcpResource", "other", "note://readme"),
            "ask",
            None,
        ),
        (
            CallSubject::resource("ReadMcpResource", "docs", "file:///x"),
            "ask",
            None,
        ),
    ];
    for (subject, verdict, rule) in cases {
        assert_eq!(
            outcome(&rules, subject),
            (*verdict, rule.map(str::to_owned)),
            "{subject:?}"
        );
    }
}
