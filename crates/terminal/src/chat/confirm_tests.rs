//! Confirmation: the yes/no rule, the confirmer's own deadline, and the REPL answering a
//! real `ExecuteCommand` question from scripted input (yes, no, no answer).

use std::sync::Arc;
use std::time::{Duration, Instant};

use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::config::{TerminalSettings, with_terminal_rules};
use smallebot_agent::tools::{ExecuteCommand, ToolRegistry, Workspace};
use smallebot_application::ConversationService;
use smallebot_core::rules::permission::PermissionRules;
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec, message_text};
use tokio::io::AsyncWriteExt;

use super::*;
use crate::chat::Repl;
use crate::render::{EventPrinter, Style};

#[test]
fn only_y_or_yes_allows() {
    for yes in ["y", "Y", "yes", " YES \r"] {
        assert!(is_yes(yes), "{yes:?}");
        assert_eq!(answer_of(yes).0, Answer::Once, "{yes:?}");
    }
    for no in ["", "n", "no", "yy", "sure", "y es"] {
        assert!(!is_yes(no), "{no:?}");
        assert_eq!(answer_of(no).0, Answer::Deny, "{no:?}");
    }
}

#[test]
fn the_answers_table() {
    for (line, answer) in [
        ("a", Answer::Conversation),
        ("Always", Answer::Conversation),
        ("r", Answer::Always),
        (" RULE ", Answer::Always),
        ("ra", Answer::Deny),
    ] {
        assert_eq!(answer_of(line).0, answer, "{line:?}");
    }
}

#[tokio::test]
async fn a_call_of_another_tool_is_shown_with_its_arguments_and_the_rule() {
    let (confirmer, mut requests) = TerminalConfirmer::channel();
    let asked = tokio::spawn(async move {
        let request = ConfirmationRequest::new(r#"WriteFile {"path":"a.md"}"#, None, None)
            .about("WriteFile", "ask WriteFile(docs/**)")
            .not_a_command();
        confirmer.answer(&request, Duration::from_secs(5)).await
    });
    let request = requests.recv().await.unwrap();
    let mut input = crate::chat::input::PipedInput::new(tokio::io::BufReader::new(&b"r\n"[..]));
    let mut out = Vec::new();
    let (_, mut interrupts) = mpsc::unbounded_channel();
    let asked_now = ask(request, &mut input, &mut out, &mut interrupts)
        .await
        .unwrap();
    assert_eq!(asked_now, Asked::Answered(Answer::Always));
    assert_eq!(asked.await.unwrap(), Answer::Always);
    let out = String::from_utf8(out).unwrap();
    assert!(
        out.starts_with(
            "\nThe assistant wants to call WriteFile:\n  WriteFile {\"path\":\"a.md\"}\n  \
             (asked by ask WriteFile(docs/**))\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("→ allowed (and from now on: a rule for you)"),
        "{out}"
    );
}

#[tokio::test]
async fn the_confirmer_denies_when_nobody_answers() {
    let (confirmer, mut requests) = TerminalConfirmer::channel();
    let asked = tokio::spawn(async move {
        let request = ConfirmationRequest::new("ls", None, None);
        confirmer
            .confirm(&request, Duration::from_millis(100))
            .await
    });
    let request = requests.recv().await.unwrap();
    assert_eq!(request.command, "ls");
    assert!(!asked.await.unwrap());
    // The REPL can see that nobody waits any more.
    assert!(request.reply.is_closed());
}

/// A service whose only tool is `ExecuteCommand` requiring confirmation (timeout
/// `confirm_within`) through a [`TerminalConfirmer`]; returns its request receiver.
async fn service(
    dir: &std::path::Path,
    server: &TestModel,
    confirm_within: Duration,
) -> (Arc<ConversationService>, mpsc::Receiver<ConfirmRequest>) {
    let (confirmer, requests) = TerminalConfirmer::channel();
    let terminal = TerminalSettings {
        require_command_confirmation: true,
        confirmation_timeout: confirm_within,
        ..TerminalSettings::default()
    };
    let confirmer: Arc<dyn CommandConfirmer> = Arc::new(confirmer);
    let shell = ExecuteCommand::new(
        terminal.clone(),
        Workspace::new(dir.join("workspace")),
        Arc::clone(&confirmer),
    )
    .unwrap();
    // requireCommandConfirmation is a permission rule, asked about by the assembly's
    // permission gate.
    let rules = with_terminal_rules(
        PermissionRules::default(),
        &terminal,
        std::path::Path::new("terminal.json"),
    )
    .unwrap();
    let store = SqliteStore::open(&dir.join("db.sqlite")).await.unwrap();
    let agent = AgentAssembly::new(Arc::new(store), ChatEndpoint::new(server.base_url(), "m"))
        .skill_path(dir.join("SKILL.md"))
        .tools(ToolRegistry::new().with(Arc::new(shell)))
        .permissions(rules)
        .confirmer(confirmer)
        .confirmation_timeout(confirm_within)
        .build()
        .unwrap();
    let service = Arc::new(agent.service);
    (service, requests)
}

/// Scripts "run `touch made && echo made-it`", then an answer; titles (asked for beside
/// the first turn) are answered on their own.
fn script(server: &TestModel) {
    server.answer_when(RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    server.push(ScriptedResponse::tool_calls([ToolCallSpec::new(
        "call_1",
        "ExecuteCommand",
        r#"{"command":"touch made && echo made-it"}"#,
    )]));
    server.push(ScriptedResponse::text("finished"));
}

/// The tool result a request carries.
fn tool_message(request: &RecordedRequest) -> Option<serde_json::Value> {
    request
        .messages()
        .iter()
        .find(|m| m["role"] == "tool")
        .cloned()
}

/// The tool result the model received after the command.
fn tool_result(server: &TestModel) -> String {
    let requests = server.requests();
    let message = requests.iter().find_map(tool_message).unwrap();
    message_text(&message)
}

/// Runs the REPL on `input` (all of it available at once) and returns what it printed.
async fn chat(
    service: &Arc<ConversationService>,
    requests: mpsc::Receiver<ConfirmRequest>,
    input: impl tokio::io::AsyncRead + Unpin,
) -> String {
    let c = service.create_conversation("tester").await.unwrap();
    let (_interrupt_tx, interrupts) = mpsc::unbounded_channel();
    let mut out = Vec::new();
    {
        let printer = EventPrinter::new(&mut out, false, Style { ansi: false });
        let mut repl = Repl::new(
            Arc::clone(service),
            "tester".into(),
            Some(c.id),
            printer,
            interrupts,
        )
        .with_confirmations(requests);
        tokio::time::timeout(
            Duration::from_secs(20),
            repl.run(crate::chat::input::PipedInput::new(
                tokio::io::BufReader::new(input),
            )),
        )
        .await
        .expect("the REPL finishes")
        .unwrap();
    }
    String::from_utf8(out).unwrap()
}

#[tokio::test]
async fn answering_y_runs_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    script(&server);
    let (service, requests) = service(dir.path(), &server, Duration::from_secs(30)).await;
    let out = chat(&service, requests, &b"make the file\ny\n/quit\n"[..]).await;
    assert!(
        out.contains(
            "wants to run a command:\n  $ touch made && echo made-it\n  \
             (asked by the default for ExecuteCommand (ask))\n\
             Allow? [y/N, a = always in this conversation, r = always (a rule)] (30 s) "
        ),
        "{out}"
    );
    assert!(out.contains("→ allowed"), "{out}");
    assert!(out.contains("finished"), "{out}");
    assert!(dir.path().join("workspace/made").exists());
    assert_eq!(tool_result(&server), "made-it\n[exit code: 0]");
}

#[tokio::test]
async fn answering_n_denies_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    script(&server);
    let (service, requests) = service(dir.path(), &server, Duration::from_secs(30)).await;
    let out = chat(&service, requests, &b"make the file\nn\n/quit\n"[..]).await;
    assert!(out.contains("Allow? [y/N, a = always"), "{out}");
    assert!(out.contains("→ denied"), "{out}");
    assert!(!dir.path().join("workspace/made").exists());
    assert!(
        tool_result(&server).contains("the user did not allow this command"),
        "{}",
        tool_result(&server)
    );
}

#[tokio::test]
async fn no_answer_within_the_timeout_denies_the_command() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    script(&server);
    let (service, requests) = service(dir.path(), &server, Duration::from_secs(1)).await;
    let (mut input_tx, input_rx) = tokio::io::duplex(1024);
    let feeder = tokio::spawn(async move {
        input_tx.write_all(b"make the file\n").await.unwrap();
        // Say nothing while the question waits, then leave.
        tokio::time::sleep(Duration::from_millis(2500)).await;
        input_tx.write_all(b"/quit\n").await.unwrap();
        tokio::time::sleep(Duration::from_secs(30)).await;
    });
    let started = Instant::now();
    let out = chat(&service, requests, input_rx).await;
    feeder.abort();
    assert!(started.elapsed() < Duration::from_secs(10));
    assert!(out.contains("→ denied (no answer within 1 s)"), "{out}");
    assert!(!dir.path().join("workspace/made").exists());
    assert!(
        tool_result(&server).contains("no answer within 1 s"),
        "{}",
        tool_result(&server)
    );
}

#[tokio::test]
async fn always_allows_the_same_command_for_the_rest_of_the_conversation() {
    let dir = tempfile::tempdir().unwrap();
    let server = TestModel::start().await.unwrap();
    // Each turn runs the same command, then finishes; titles answered on their own.
    server.respond_with(|req| {
        let title = req
            .last_user_text()
            .is_some_and(|t| t.starts_with(smallebot_application::pipeline::TITLE_INSTRUCTION));
        if title {
            ScriptedResponse::text("A title")
        } else if req.last_role() == Some("user") {
            ScriptedResponse::tool_calls([ToolCallSpec::new(
                "call_1",
                "ExecuteCommand",
                r#"{"command":"touch made && echo made-it"}"#,
            )])
        } else {
            ScriptedResponse::text("finished")
        }
    });
    let (service, requests) = service(dir.path(), &server, Duration::from_secs(30)).await;
    // The second turn runs the same command: it is not asked again.
    let out = chat(
        &service,
        requests,
        &b"make the file\na\nmake it again\n/quit\n"[..],
    )
    .await;
    assert_eq!(out.matches("Allow? [y/N").count(), 1, "{out}");
    assert!(
        out.contains("→ allowed (and from now on in this conversation)"),
        "{out}"
    );
    // Both turns ran it.
    let results = server.requests().iter().filter_map(tool_message).count();
    assert!(results >= 2, "{out}");
}
