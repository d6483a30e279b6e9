use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use smallebot_core::rules::hook::{HookDecision, Matcher};

use super::*;
use crate::config::HookEntry;

/// A runner for `home` with `commands` (timeout each) on `event`, matching every tool.
fn runner(home: &Path, event: HookEvent, commands: &[(&str, Duration)]) -> HookRunner {
    let hooks = commands
        .iter()
        .map(|(command, timeout)| HookCommand {
            command: (*command).to_owned(),
            timeout: *timeout,
        })
        .collect();
    let mut events = BTreeMap::new();
    events.insert(
        event,
        vec![HookEntry {
            matcher: Matcher::All,
            hooks,
        }],
    );
    std::fs::create_dir_all(home.join("workspace")).unwrap();
    HookRunner::new(
        HooksConfig { events },
        home.to_path_buf(),
        home.join("workspace"),
        &CommandEnvironment::default(),
    )
}

fn input(event: HookEvent) -> HookInput {
    let mut input = HookInput::new(event, String::new(), Some("c1".into()), Some("t1".into()));
    input.tool_name = Some("ExecuteCommand".into());
    input.tool_input = Some(serde_json::json!({"command": "rm -rf x"}));
    input
}

const SECOND: Duration = Duration::from_secs(1);

#[tokio::test]
async fn a_hook_reads_its_input_and_variables_in_the_workspace() {
    let home = tempfile::tempdir().unwrap();
    let hooks = runner(
        home.path(),
        HookEvent::PreToolUse,
        &[(
            "cat > ../input.json; echo \"$SMALLEBOT_EVENT $SMALLEBOT_CONVERSATION_ID \
             $SMALLEBOT_TURN_ID $(pwd)\" > ../env.txt; test \"$SMALLEBOT_HOME\" = \"$(dirname \"$(pwd)\")\"",
            5 * SECOND,
        )],
    );
    let cancel = CancellationToken::new();
    let result = hooks
        .run(HookEvent::PreToolUse, input(HookEvent::PreToolUse), &cancel)
        .await;
    assert_eq!(result, HookResult::default());
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(home.path().join("input.json")).unwrap())
            .unwrap();
    assert_eq!(written["hook_event_name"], "PreToolUse");
    assert_eq!(written["tool_input"]["command"], "rm -rf x");
    let workspace = home.path().join("workspace");
    assert_eq!(written["cwd"], workspace.display().to_string());
    let env = std::fs::read_to_string(home.path().join("env.txt")).unwrap();
    let real = workspace.canonicalize().unwrap();
    assert_eq!(env.trim(), format!("PreToolUse c1 t1 {}", real.display()));
}

#[tokio::test]
async fn exit_2_blocks_with_stderr_and_hooks_run_in_parallel() {
    let home = tempfile::tempdir().unwrap();
    let hooks = runner(
        home.path(),
        HookEvent::PreToolUse,
        &[
            ("sleep 0.6; echo 'no rm, please' >&2; exit 2", 5 * SECOND),
            (
                "sleep 0.6; echo '{\"additionalContext\": \"checked\"}'",
                5 * SECOND,
            ),
        ],
    );
    let started = Instant::now();
    let result = hooks
        .run(
            HookEvent::PreToolUse,
            input(HookEvent::PreToolUse),
            &CancellationToken::new(),
        )
        .await;
    assert!(
        started.elapsed() < Duration::from_millis(1100),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(result.decision, Some(HookDecision::Block));
    assert_eq!(result.reason.as_deref(), Some("no rm, please"));
    assert_eq!(result.additional_context.as_deref(), Some("checked"));
}

/// Whether the process `pid` is still running (not a zombie).
fn alive(pid: &str) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| !stat.contains(") Z "))
}

#[tokio::test]
async fn a_hook_past_its_timeout_is_killed_with_its_group() {
    let home = tempfile::tempdir().unwrap();
    let hooks = runner(
        home.path(),
        HookEvent::Stop,
        &[(
            "sleep 30 & echo $! > ../child.pid; sleep 30",
            Duration::from_millis(700),
        )],
    );
    let started = Instant::now();
    let result = hooks
        .run(
            HookEvent::Stop,
            input(HookEvent::Stop),
            &CancellationToken::new(),
        )
        .await;
    assert!(started.elapsed() < 5 * SECOND);
    let warning = result.warning.unwrap();
    assert!(
        warning.contains("took longer than 0 s and was killed"),
        "{warning}"
    );
    let pid = std::fs::read_to_string(home.path().join("child.pid")).unwrap();
    // The group's kill is sent before the hook's result; on a loaded machine the
    // signal may take a moment to land.
    let killed = Instant::now();
    while alive(pid.trim()) && killed.elapsed() < 3 * SECOND {
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert!(!alive(pid.trim()), "the hook's background child still runs");
}

#[tokio::test]
async fn a_cancelled_turn_kills_its_hooks() {
    let home = tempfile::tempdir().unwrap();
    let hooks = runner(home.path(), HookEvent::Stop, &[("sleep 30", 60 * SECOND)]);
    let cancel = CancellationToken::new();
    let stopper = cancel.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(200)).await;
        stopper.cancel();
    });
    let started = Instant::now();
    let result = hooks
        .run(HookEvent::Stop, input(HookEvent::Stop), &cancel)
        .await;
    assert!(started.elapsed() < 5 * SECOND);
    assert!(result.warning.unwrap().contains("the turn was cancelled"));
}

#[tokio::test]
async fn only_the_event_s_matching_hooks_run() {
    let home = tempfile::tempdir().unwrap();
    let hooks = runner(home.path(), HookEvent::PreToolUse, &[("exit 2", SECOND)]);
    assert!(hooks.wants(HookEvent::PreToolUse, Some("ReadFile")));
    assert!(!hooks.wants(HookEvent::PostToolUse, Some("ReadFile")));
    let result = hooks
        .run(
            HookEvent::PostToolUse,
            input(HookEvent::PostToolUse),
            &CancellationToken::new(),
        )
        .await;
    assert_eq!(result, HookResult::default());
}
