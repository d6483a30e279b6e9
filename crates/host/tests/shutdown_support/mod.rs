//! Shared by the shutdown tests: a turn whose command runs until stopped, where its
//! processes, control group and temporary folder are, and what a clean stop leaves.
#![allow(clippy::unwrap_used, clippy::expect_used, dead_code)]

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde_json::json;
use smallebot_core::entities::{HistoryRow, ToolCall, ToolCallStatus, Turn, TurnStatus};
use smallebot_core::repository::{ConversationRepository, HistoryRepository, TurnRepository};
use smallebot_infrastructure::SqliteStore;
use smallebot_testkit::{ScriptedResponse, TestModel, ToolCallSpec};

use super::cli;

/// A command that starts a child in its process group, writes the child's pid to the
/// workspace and waits for it.
pub const SLEEPER: &str = "sleep 1000 & echo $! > sleep.pid; wait";

/// The marker the shutdown puts in a stopped tool call's result.
pub const INTERRUPTED_MARK: &str = "[interrupted: SmallEBot was shutting down]";

/// A home whose commands run confined when the kernel can (then each gets a private
/// temporary folder), else unconfined (no Landlock: `run` could not ask for consent);
/// returns whether they are confined.
pub fn configure_sandbox(home: &Path) -> bool {
    let confined = smallebot_sandbox::probe().is_available();
    if !confined {
        std::fs::write(home.join("terminal.json"), r#"{"sandbox": "off"}"#).unwrap();
    }
    confined
}

/// Scripts one turn that runs [`SLEEPER`] (titles answered aside).
pub fn model_running_a_sleeper(model: &TestModel) {
    cli::answer_titles(model);
    model.push(ScriptedResponse::tool_calls([ToolCallSpec::new(
        "c1",
        "ExecuteCommand",
        json!({ "command": SLEEPER }).to_string(),
    )]));
}

/// Reads `file` until it holds a pid, for at most 30 s.
pub async fn pid_in(file: &Path) -> u32 {
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
pub fn runs(pid: u32) -> bool {
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
pub fn host_groups(pid: u32) -> Vec<PathBuf> {
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
pub fn temp_folders(temp: &Path, pid: u32) -> Vec<PathBuf> {
    let prefix = format!("smallebot-cmd-{pid}-");
    std::fs::read_dir(temp)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(&prefix))
        .map(|e| e.path())
        .collect()
}

pub fn send_signal(pid: u32, signal: rustix::process::Signal) {
    let pid = rustix::process::Pid::from_raw(i32::try_from(pid).unwrap()).unwrap();
    rustix::process::kill_process(pid, signal).unwrap();
}

/// The only turn and tool call stored in `home`, read without recovering anything.
pub async fn stored_turn_and_call(home: &Path) -> (Turn, ToolCall) {
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
pub async fn assert_stopped_cleanly(
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
