//! Stopping through the real binary: SIGTERM or SIGHUP to `run` while a command runs,
//! and SIGTERM to `serve` during a turn, end the turn stored (never `running`), its tool
//! call `interrupted`, the command's processes killed and its control group and
//! temporary folder removed; a start sweeps what a killed process left behind.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use cli::text;
use serde_json::json;
use smallebot_core::entities::{HistoryRow, ToolCall, ToolCallStatus, Turn, TurnStatus};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{Gate, ScriptedResponse, TestModel, ToolCallSpec};
use tokio::io::{AsyncBufReadExt, BufReader};

/// A command that starts a child in its process group, writes the child's pid to the
/// workspace and waits for it.
const SLEEPER: &str = "sleep 1000 & echo $! > sleep.pid; wait";

/// The marker the shutdown puts in a stopped tool call's result.
const INTERRUPTED_MARK: &str = "[interrupted: SmallEBot was shutting down]";

/// A home whose commands run confined when the kernel can (then each gets a private
/// temporary folder), else unconfined (no Landlock: `run` could not ask for consent);
/// returns whether they are confined.
fn configure_sandbox(home: &Path) -> bool {
    let confined = smallebot_agent::sandbox::probe().is_available();
    if !confined {
        std::fs::write(home.join("terminal.json"), r#"{"sandbox": "off"}"#).unwrap();
    }
    confined
}

/// Scripts one turn that runs [`SLEEPER`] (titles answered aside).
fn model_running_a_sleeper(model: &TestModel) {
    cli::answer_titles(model);
    model.push(ScriptedResponse::tool_calls([ToolCallSpec::new(
        "c1",
        "ExecuteCommand",
        json!({ "command": SLEEPER }).to_string(),
    )]));
}

/// Reads `file` until it holds a pid, for at most 30 s.
async fn pid_in(file: &Path) -> u32 {
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        if let Some(pid) = std::fs::read_to_string(file)
            .ok()
            .and_then(|t| t.trim().parse().ok())
        {
            return pid;
        }
        assert!(
            Instant::now() < deadline,
            "{} was never written",
            file.display()
        );
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

/// Whether `pid` runs (a zombie no longer does).
fn runs(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .ok()
        .and_then(|stat| {
            let state = stat
                .rsplit_once(')')?
                .1
                .split_whitespace()
                .next()?
                .to_owned();
            Some(state != "Z" && state != "X")
        })
        .unwrap_or(false)
}

/// The control group directories `pid` is in that a host made (`smallebot-…`).
fn host_groups(pid: u32) -> Vec<PathBuf> {
    let groups = std::fs::read_to_string(format!("/proc/{pid}/cgroup")).unwrap_or_default();
    groups
        .lines()
        .filter_map(|line| line.splitn(3, ':').nth(2))
        .filter(|path| path.contains("/smallebot-"))
        .flat_map(|path| {
            let path = path.trim_start_matches('/').to_owned();
            [
                Path::new("/sys/fs/cgroup/pids").join(&path),
                Path::new("/sys/fs/cgroup").join(&path),
            ]
        })
        .filter(|dir| dir.exists())
        .collect()
}

/// The private temporary folders of the host `pid` in `temp`.
fn temp_folders(temp: &Path, pid: u32) -> Vec<PathBuf> {
    let prefix = format!("smallebot-cmd-{pid}-");
    std::fs::read_dir(temp)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

fn send_signal(pid: u32, signal: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

/// The only turn and tool call stored in `home`, read without recovering anything.
async fn stored_turn_and_call(home: &Path) -> (Turn, ToolCall) {
    let store = SqliteStore::open(&home.join("smallebot.db")).await.unwrap();
    let conversations = store.list_conversations(None).await.unwrap();
    assert_eq!(conversations.len(), 1, "{conversations:?}");
    let id = conversations[0].id;
    let turns = store.list_turns(id).await.unwrap();
    assert_eq!(turns.len(), 1, "{turns:?}");
    let calls: Vec<ToolCall> = store
        .rows_after(id, 0)
        .await
        .unwrap()
        .into_iter()
        .filter_map(|row| match row {
            HistoryRow::ToolCall(call) => Some(call),
            _ => None,
        })
        .collect();
    assert_eq!(calls.len(), 1, "{calls:?}");
    store.close().await;
    (turns[0].clone(), calls[0].clone())
}

/// What a stop during the command must leave: the turn cancelled by the process itself
/// (not recovered later), the call interrupted with what it returned, the command's
/// processes gone and its control group and temporary folder removed.
async fn assert_stopped_cleanly(
    home: &Path,
    temp: &Path,
    host: u32,
    sleep: u32,
    groups: &[PathBuf],
) {
    let (turn, call) = stored_turn_and_call(home).await;
    assert_eq!(turn.status, TurnStatus::Cancelled, "{turn:?}");
    assert_eq!(call.status, ToolCallStatus::Interrupted, "{call:?}");
    let result = call.result.unwrap_or_default();
    assert!(result.contains(INTERRUPTED_MARK), "{result}");
    assert!(!runs(sleep), "the command's child {sleep} still runs");
    for group in groups {
        assert!(!group.exists(), "{} is left", group.display());
    }
    assert!(
        temp_folders(temp, host).is_empty(),
        "{:?}",
        temp_folders(temp, host)
    );
}

async fn stopping_run_during_a_command(signal: rustix::process::Signal, name: &str) {
    let home = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let confined = configure_sandbox(home.path());
    let model = TestModel::start().await.unwrap();
    model_running_a_sleeper(&model);
    let child = cli::smallebot(home.path(), Some(&model.base_url()))
        .env("TMPDIR", temp.path())
        .args(["run", "sleep for a while"])
        .spawn()
        .unwrap();
    let host = child.id().unwrap();
    let sleep = pid_in(&home.path().join("workspace/sleep.pid")).await;
    assert!(runs(sleep));
    let groups = host_groups(sleep);
    if confined {
        assert_eq!(
            temp_folders(temp.path(), host).len(),
            1,
            "the command's folder"
        );
    }
    send_signal(host, signal);
    let out = tokio::time::timeout(Duration::from_secs(15), child.wait_with_output())
        .await
        .expect("run exits soon after the signal")
        .unwrap();
    assert_stopped_cleanly(home.path(), temp.path(), host, sleep, &groups).await;
    let stderr = text(&out.stderr);
    assert!(!out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!("{name}: stopping the turn")),
        "{stderr}"
    );
}

#[tokio::test]
async fn sigterm_to_run_during_a_command_ends_the_turn_stored_and_leaves_nothing() {
    stopping_run_during_a_command(rustix::process::Signal::TERM, "SIGTERM").await;
}

#[tokio::test]
async fn sighup_to_run_during_a_command_ends_the_turn_stored_and_leaves_nothing() {
    stopping_run_during_a_command(rustix::process::Signal::HUP, "SIGHUP").await;
}

/// `serve` started with `args`: the process, its page address, and its standard error
/// lines as they come.
async fn serve(
    home: &Path,
    temp: &Path,
    model: &TestModel,
    args: &[&str],
) -> (
    tokio::process::Child,
    String,
    tokio::sync::mpsc::UnboundedReceiver<String>,
) {
    let mut child = cli::smallebot(home, Some(&model.base_url()))
        .env("TMPDIR", temp)
        .args(["serve", "--addr", "127.0.0.1:0"])
        .args(args)
        .spawn()
        .unwrap();
    let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
    let banner = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .expect("a banner within 30 s")
        .unwrap()
        .expect("serve prints where it listens");
    let address = banner
        .split_whitespace()
        .find_map(|w| w.strip_prefix("http://"))
        .unwrap()
        .trim_end_matches('/')
        .to_owned();
    let (tx, rx) = tokio::sync::mpsc::unbounded_channel();
    let mut errors = BufReader::new(child.stderr.take().unwrap()).lines();
    tokio::spawn(async move {
        while let Ok(Some(line)) = errors.next_line().await {
            let _ = tx.send(line);
        }
    });
    (child, format!("http://{address}"), rx)
}

/// Waits (at most 30 s) for a standard error line containing `needle`.
async fn line_with(lines: &mut tokio::sync::mpsc::UnboundedReceiver<String>, needle: &str) {
    let wait = async {
        while let Some(line) = lines.recv().await {
            if line.contains(needle) {
                return;
            }
        }
        panic!("standard error ended without '{needle}'");
    };
    tokio::time::timeout(Duration::from_secs(30), wait)
        .await
        .unwrap_or_else(|_| panic!("no '{needle}' on standard error within 30 s"));
}

/// Starts a turn in a new conversation; returns the conversation's id.
async fn start_turn(http: &reqwest::Client, base: &str, text: &str) -> reqwest::Response {
    let created: serde_json::Value = http
        .post(format!("{base}/api/conversations"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    let id = created["id"].as_str().unwrap();
    http.post(format!("{base}/api/conversations/{id}/messages"))
        .json(&json!({ "text": text }))
        .send()
        .await
        .unwrap()
}

#[tokio::test]
async fn sigterm_to_serve_lets_the_running_turn_finish_within_the_grace() {
    let home = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    let answer = Gate::new();
    model.push(ScriptedResponse::text("the whole answer").hold_until(&answer));
    let (child, base, mut errors) = serve(
        home.path(),
        temp.path(),
        &model,
        &["--shutdown-grace", "60"],
    )
    .await;
    let http = reqwest::Client::new();
    let started = start_turn(&http, &base, "answer slowly").await;
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
    send_signal(child.id().unwrap(), rustix::process::Signal::TERM);
    line_with(&mut errors, "SIGTERM: stopping — no new turns").await;
    // Still answering, but no new turn is taken.
    let refused = start_turn(&http, &base, "one more").await;
    assert_eq!(
        refused.status(),
        reqwest::StatusCode::SERVICE_UNAVAILABLE,
        "{:?}",
        refused.text().await
    );
    let opened = Instant::now();
    answer.open();
    let out = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output())
        .await
        .expect("serve exits once the turn ended")
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert!(opened.elapsed() < Duration::from_secs(30));
    let store = SqliteStore::open(&home.path().join("smallebot.db"))
        .await
        .unwrap();
    let mut statuses = Vec::new();
    for c in store.list_conversations(None).await.unwrap() {
        for turn in store.list_turns(c.id).await.unwrap() {
            statuses.push(turn.status);
        }
    }
    // The refused message started no turn.
    assert_eq!(statuses, [TurnStatus::Completed]);
    store.close().await;
}

#[tokio::test]
async fn sigterm_to_serve_cancels_a_running_command_at_the_grace_end() {
    let home = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    configure_sandbox(home.path());
    let model = TestModel::start().await.unwrap();
    model_running_a_sleeper(&model);
    let (child, base, mut errors) =
        serve(home.path(), temp.path(), &model, &["--shutdown-grace", "1"]).await;
    let host = child.id().unwrap();
    let http = reqwest::Client::new();
    let started = start_turn(&http, &base, "sleep for a while").await;
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
    let sleep = pid_in(&home.path().join("workspace/sleep.pid")).await;
    let groups = host_groups(sleep);
    let signalled = Instant::now();
    send_signal(host, rustix::process::Signal::TERM);
    line_with(&mut errors, "the shutdown grace ended").await;
    assert!(signalled.elapsed() >= Duration::from_secs(1));
    let out = tokio::time::timeout(Duration::from_secs(15), child.wait_with_output())
        .await
        .expect("serve exits soon after the grace")
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    assert_stopped_cleanly(home.path(), temp.path(), host, sleep, &groups).await;
}

#[tokio::test]
async fn a_start_sweeps_the_leftovers_of_dead_processes_only() {
    let home = tempfile::tempdir().unwrap();
    let temp = tempfile::tempdir().unwrap();
    let mut gone = std::process::Command::new("true").spawn().unwrap();
    let dead = gone.id();
    gone.wait().unwrap();
    let alive = std::process::id();
    let dead_folder = temp.path().join(format!("smallebot-cmd-{dead}-abcd"));
    let live_folder = temp.path().join(format!("smallebot-cmd-{alive}-abcd"));
    for folder in [&dead_folder, &live_folder] {
        std::fs::create_dir_all(folder.join("inside")).unwrap();
    }
    // A control group of the dead process too, where this machine lets us make one.
    let dead_group = own_pids_group().map(|parent| parent.join(format!("smallebot-{dead}-00ff")));
    let dead_group = dead_group.filter(|group| std::fs::create_dir(group).is_ok());
    let model = TestModel::start().await.unwrap();
    cli::answer_titles(&model);
    model.push(ScriptedResponse::text("hello"));
    let out = cli::smallebot(home.path(), Some(&model.base_url()))
        .env("TMPDIR", temp.path())
        .args(["run", "hi"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", text(&out.stderr));
    assert!(!dead_folder.exists(), "the dead process's folder is swept");
    assert!(live_folder.exists(), "a live process's folder stays");
    if let Some(group) = dead_group {
        assert!(!group.exists(), "{} is swept", group.display());
    }
}

/// This process's group in the cgroup v1 pids hierarchy, when there is one.
fn own_pids_group() -> Option<PathBuf> {
    let groups = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    let path = groups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "pids")
            .then(|| path.to_owned())
    })?;
    let dir = Path::new("/sys/fs/cgroup/pids").join(path.trim_start_matches('/'));
    dir.is_dir().then_some(dir)
}
