//! The permission gate every call of the registry passes: the rules decide on what each
//! kind of tool's call is (a workspace path, command words, the tool), a denied call's
//! result names the rule and nothing runs, an asked one runs only when the person
//! allows it.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use smallebot_agent::config::TerminalSettings;
use smallebot_agent::tools::{
    ExecuteCommand, PermissionGate, ToolRegistry, Workspace, permission_argument, workspace_tools,
};
use smallebot_application::ports::{
    Answer, CommandConfirmer, ConfirmationRequest, DenyAll, ToolContext, ToolExecutor,
    ToolInvocation, ToolOutcome,
};
use smallebot_core::entities::ToolCallStatus;
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::permission::{DefaultMode, PermissionRule, PermissionRules};
use tokio_util::sync::CancellationToken;

/// Records what it was asked and gives one answer.
struct Recording {
    answer: bool,
    asked: Mutex<Vec<String>>,
}

#[async_trait]
impl CommandConfirmer for Recording {
    async fn confirm(&self, request: &ConfirmationRequest<'_>, _timeout: Duration) -> bool {
        self.asked.lock().unwrap().push(request.command.to_owned());
        self.answer
    }
}

/// Records the rule that asked, and gives the answers in order (then denies).
struct Answering {
    answers: Mutex<Vec<Answer>>,
    asked: Mutex<Vec<(String, Option<String>)>>,
}

impl Answering {
    fn new(answers: &[Answer]) -> Arc<Self> {
        Arc::new(Self {
            answers: Mutex::new(answers.iter().rev().copied().collect()),
            asked: Mutex::default(),
        })
    }
}

#[async_trait]
impl CommandConfirmer for Answering {
    async fn confirm(&self, _request: &ConfirmationRequest<'_>, _timeout: Duration) -> bool {
        unreachable!("the gate asks for an answer")
    }

    async fn answer(&self, request: &ConfirmationRequest<'_>, _timeout: Duration) -> Answer {
        let rule = request.rule.map(str::to_owned);
        self.asked
            .lock()
            .unwrap()
            .push((request.command.to_owned(), rule));
        self.answers.lock().unwrap().pop().unwrap_or(Answer::Deny)
    }
}

fn rules(
    allow: &[&str],
    ask: &[&str],
    deny: &[&str],
    default_mode: DefaultMode,
) -> PermissionRules {
    let parsed = |list: &[&str]| {
        list.iter()
            .map(|rule| PermissionRule::parse(rule, &permission_argument).unwrap())
            .collect()
    };
    PermissionRules {
        allow: parsed(allow),
        ask: parsed(ask),
        deny: parsed(deny),
        default_mode,
        ..PermissionRules::default()
    }
}

/// The file tools and `ExecuteCommand` over a fresh workspace, behind `rules`.
struct Tools {
    dir: tempfile::TempDir,
    registry: ToolRegistry,
}

impl Tools {
    fn new(rules: PermissionRules, confirmer: Arc<dyn CommandConfirmer>) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("workspace");
        std::fs::create_dir_all(root.join("docs")).unwrap();
        std::fs::create_dir_all(root.join("secret")).unwrap();
        std::fs::write(root.join("secret/key.txt"), "s3cret").unwrap();
        let shell = ExecuteCommand::new(
            TerminalSettings::default(),
            Workspace::new(root.clone()),
            Arc::clone(&confirmer),
        )
        .unwrap();
        let registry = workspace_tools(root)
            .into_iter()
            .fold(ToolRegistry::new(), ToolRegistry::with)
            .with(Arc::new(shell))
            .with_gate(Arc::new(PermissionGate::new(rules, confirmer)));
        Self { dir, registry }
    }

    fn path(&self, relative: &str) -> std::path::PathBuf {
        self.dir.path().join("workspace").join(relative)
    }

    async fn call(&self, tool: &str, arguments: serde_json::Value) -> ToolOutcome {
        self.call_in(ConversationId::new(), tool, arguments).await
    }

    async fn call_in(
        &self,
        conversation: ConversationId,
        tool: &str,
        arguments: serde_json::Value,
    ) -> ToolOutcome {
        let invocation = ToolInvocation {
            call_id: "call_1".into(),
            name: tool.into(),
            arguments: arguments.to_string(),
        };
        let context = ToolContext::in_turn(conversation, TurnId::new(), CancellationToken::new());
        self.registry.execute(&invocation, &context).await
    }
}

#[tokio::test]
async fn file_tools_are_decided_on_the_normalized_workspace_path() {
    let tools = Tools::new(
        rules(
            &["WriteFile(docs/**)"],
            &[],
            &["ReadFile(secret/**)"],
            DefaultMode::Ask,
        ),
        Arc::new(DenyAll),
    );
    let write = |path: &str| json!({"path": path, "content": "x"});
    // Allowed by the glob, however the path is spelled.
    for path in ["docs/a.md", "./docs/b.md", "docs/sub/../c.md"] {
        let outcome = tools.call("WriteFile", write(path)).await;
        assert_eq!(
            outcome.status,
            ToolCallStatus::Ok,
            "{path}: {}",
            outcome.content
        );
    }
    assert!(tools.path("docs/c.md").is_file());
    // Outside the glob: the default asks, nobody answers: denied, nothing written.
    let outcome = tools.call("WriteFile", write("notes.md")).await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::Denied,
        "{}",
        outcome.content
    );
    assert!(
        outcome
            .content
            .contains("the user did not allow this call of WriteFile"),
        "{}",
        outcome.content
    );
    assert!(!tools.path("notes.md").exists());
    // Denied, naming the rule, however the path is spelled; the file is never read.
    for path in [
        "secret/key.txt",
        "docs/../secret/key.txt",
        "./secret//key.txt",
    ] {
        let outcome = tools.call("ReadFile", json!({"path": path})).await;
        assert_eq!(outcome.status, ToolCallStatus::Denied, "{path}");
        assert_eq!(
            outcome.content,
            "Error: this call of ReadFile was denied by the permission rule \
             `deny ReadFile(secret/**)` in agent.json; it was not run. Do not retry it: do \
             the task another way, or ask the user to change the rule."
        );
    }
    // A path refused on its face is the tool's refusal, before any rule.
    let outcome = tools.call("ReadFile", json!({"path": "../x"})).await;
    assert_eq!(outcome.status, ToolCallStatus::Denied);
    assert!(
        outcome.content.contains("leaves the workspace"),
        "{}",
        outcome.content
    );
}

#[tokio::test]
async fn a_search_or_listing_of_the_workspace_is_denied_when_it_would_reach_a_denied_path() {
    let tools = Tools::new(
        rules(
            &["GrepContent(docs/**)"],
            &[],
            &["GrepContent(secret/**)", "ListFiles(secret/**)"],
            DefaultMode::Ask,
        ),
        Arc::new(DenyAll),
    );
    // Without a path (the whole workspace) or on a folder above the denied one: the
    // search would read secret/key.txt, so the deny rule stops it.
    for arguments in [
        json!({"pattern": "s3cret"}),
        json!({"pattern": "s3cret", "path": "."}),
        json!({"pattern": "s3cret", "path": "secret"}),
    ] {
        let outcome = tools.call("GrepContent", arguments.clone()).await;
        assert_eq!(outcome.status, ToolCallStatus::Denied, "{arguments}");
        assert!(
            outcome.content.contains("`deny GrepContent(secret/**)`")
                && !outcome.content.contains("s3cret"),
            "{arguments}: {}",
            outcome.content
        );
    }
    let outcome = tools.call("ListFiles", json!({})).await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::Denied,
        "{}",
        outcome.content
    );
    assert!(!outcome.content.contains("key.txt"), "{}", outcome.content);
    // A folder the allow rule covers whole runs without asking.
    let outcome = tools
        .call("GrepContent", json!({"pattern": "x", "path": "docs"}))
        .await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
}

#[tokio::test]
async fn commands_are_decided_on_every_simple_command_s_words() {
    let asked = Arc::new(Recording {
        answer: false,
        asked: Mutex::default(),
    });
    let tools = Tools::new(
        rules(
            &["ExecuteCommand(git status)", "ExecuteCommand(touch:*)"],
            &["ExecuteCommand(git push:*)"],
            &["ExecuteCommand(rm:*)"],
            DefaultMode::Ask,
        ),
        asked.clone(),
    );
    let run = |command: &str| json!({ "command": command });
    // Allowed: every command of the line by a rule (`touch` by its prefix).
    let outcome = tools
        .call("ExecuteCommand", run("touch made && touch made2"))
        .await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    assert!(tools.path("made2").is_file());
    // `git status` is allowed, `rm` is denied: the line is denied, nothing runs.
    std::fs::create_dir_all(tools.path("x")).unwrap();
    for line in [
        "git status; rm -rf x",
        "true && /bin/rm -rf x",
        "sh -c 'rm -rf x'",
    ] {
        let outcome = tools.call("ExecuteCommand", run(line)).await;
        assert_eq!(outcome.status, ToolCallStatus::Denied, "{line}");
        assert!(
            outcome.content.contains(
                "denied by the permission rule `deny ExecuteCommand(rm:*)` in agent.json"
            ),
            "{line}: {}",
            outcome.content
        );
    }
    assert!(tools.path("x").is_dir());
    // Not every command allowed (`ls` has no rule): asked, declined.
    let outcome = tools.call("ExecuteCommand", run("git status; ls")).await;
    assert_eq!(outcome.status, ToolCallStatus::Denied);
    assert!(
        outcome
            .content
            .starts_with("Error: the user did not allow this command"),
        "{}",
        outcome.content
    );
    // An ask rule asks even where an allow rule matches too.
    let outcome = tools
        .call("ExecuteCommand", run("git push origin main"))
        .await;
    assert_eq!(outcome.status, ToolCallStatus::Denied);
    assert_eq!(
        *asked.asked.lock().unwrap(),
        ["git status; ls", "git push origin main"]
    );
    // The blacklist comes first: refused by it, before any rule or question.
    let outcome = tools.call("ExecuteCommand", run("sudo touch y")).await;
    assert!(
        outcome
            .content
            .contains("matches the blacklist rule `sudo`"),
        "{}",
        outcome.content
    );
    assert_eq!(asked.asked.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_person_who_allows_the_call_lets_it_run() {
    let asked = Arc::new(Recording {
        answer: true,
        asked: Mutex::default(),
    });
    let tools = Tools::new(
        rules(
            &[],
            &["CreateDirectory", "ExecuteCommand"],
            &[],
            DefaultMode::Allow,
        ),
        asked.clone(),
    );
    let outcome = tools.call("CreateDirectory", json!({"path": "made"})).await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    assert!(tools.path("made").is_dir());
    let outcome = tools
        .call("ExecuteCommand", json!({"command": "echo hi"}))
        .await;
    assert_eq!(outcome.content, "hi\n[exit code: 0]");
    assert_eq!(
        *asked.asked.lock().unwrap(),
        [r#"CreateDirectory {"path":"made"}"#, "echo hi"]
    );
    // A tool no rule names runs under the default (allow) without a question.
    let outcome = tools.call("ListFiles", json!({})).await;
    assert_eq!(outcome.status, ToolCallStatus::Ok);
    assert_eq!(asked.asked.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn always_in_this_conversation_and_always_spare_the_question_but_never_a_deny() {
    let person = Answering::new(&[Answer::Conversation, Answer::Always]);
    let tools = Tools::new(
        rules(
            &[],
            &["ExecuteCommand(echo:*)"],
            &["ExecuteCommand(echo secret)"],
            DefaultMode::Ask,
        ),
        person.clone(),
    );
    let run = |command: &str| json!({ "command": command });
    let (first, second) = (ConversationId::new(), ConversationId::new());
    // "Always in this conversation": the same commands run again there unasked.
    let outcome = tools
        .call_in(first, "ExecuteCommand", run("echo a && echo b"))
        .await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    for line in ["echo a && echo b", "echo b; echo a", "echo a"] {
        let outcome = tools.call_in(first, "ExecuteCommand", run(line)).await;
        assert_eq!(
            outcome.status,
            ToolCallStatus::Ok,
            "{line}: {}",
            outcome.content
        );
    }
    // Another command, or another conversation: asked again ("always" this time).
    let outcome = tools.call_in(second, "ExecuteCommand", run("echo a")).await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    let outcome = tools
        .call_in(ConversationId::new(), "ExecuteCommand", run("echo a"))
        .await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::Ok,
        "always: {}",
        outcome.content
    );
    // A command the grants do not cover is asked about (and denied: no answers left).
    let outcome = tools.call_in(first, "ExecuteCommand", run("echo c")).await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::Denied,
        "{}",
        outcome.content
    );
    // A deny rule still refuses, whatever was granted.
    let outcome = tools
        .call_in(first, "ExecuteCommand", run("echo secret"))
        .await;
    assert!(
        outcome
            .content
            .contains("`deny ExecuteCommand(echo secret)`"),
        "{}",
        outcome.content
    );
    let asked = person.asked.lock().unwrap().clone();
    let ask_rule = Some("ask ExecuteCommand(echo:*)".to_owned());
    assert_eq!(
        asked,
        [
            ("echo a && echo b".to_owned(), ask_rule.clone()),
            ("echo a".to_owned(), ask_rule.clone()),
            ("echo c".to_owned(), ask_rule),
        ]
    );
}
