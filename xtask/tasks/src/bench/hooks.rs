//! Hooks and permission rules: a tool call through the registry with one no-op command
//! hook on `PreToolUse` (a `/bin/sh` that reads its input and exits 0) beside the same
//! call without hooks — the hook's cost per call, target ≤ 3 ms — and the permission
//! rules' decision (`decide`) on a command line against 100 rules, target ≤ 20 µs per
//! call, beside a decision against no rules.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use smallebot_agent::config::{CommandEnvironment, HookCommand, HookEntry, HooksConfig};
use smallebot_agent::tools::{
    GetCurrentTime, HookRunner, PermissionGate, ToolRegistry, permission_argument,
};
use smallebot_application::ports::{DenyAll, ToolContext, ToolExecutor, ToolInvocation};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::hook::{HookEvent, Matcher};
use smallebot_core::rules::permission::{
    CallSubject, DefaultMode, PermissionRule, PermissionRules, decide,
};
use tokio_util::sync::CancellationToken;

use super::{Figure, median, ms};

/// Calls measured per registry.
const CALLS: usize = 40;
/// Decisions measured per rule set.
const DECISIONS: u32 = 20_000;
/// Rules in the measured set.
const RULES: usize = 100;

/// The registry of `GetCurrentTime` alone, behind a gate with `hooks`.
fn registry(hooks: Option<Arc<HookRunner>>) -> ToolRegistry {
    let gate = PermissionGate::new(PermissionRules::default(), Arc::new(DenyAll));
    let gate = match hooks {
        Some(hooks) => gate.with_hooks(hooks),
        None => gate,
    };
    ToolRegistry::new()
        .with(Arc::new(GetCurrentTime))
        .with_gate(Arc::new(gate))
}

/// A runner with one no-op `PreToolUse` command hook, in `home`.
fn no_op_hook(home: &std::path::Path) -> Arc<HookRunner> {
    let mut events = BTreeMap::new();
    events.insert(
        HookEvent::PreToolUse,
        vec![HookEntry {
            matcher: Matcher::All,
            hooks: vec![HookCommand {
                command: "cat > /dev/null".to_owned(),
                timeout: Duration::from_secs(30),
            }],
        }],
    );
    Arc::new(HookRunner::new(
        HooksConfig { events },
        home.to_path_buf(),
        home.join("workspace"),
        &CommandEnvironment::default(),
    ))
}

/// The median time of a call of `registry`.
async fn call_time(registry: &ToolRegistry) -> Duration {
    let invocation = ToolInvocation {
        call_id: "c".into(),
        name: "GetCurrentTime".into(),
        arguments: "{}".into(),
    };
    let context = ToolContext::in_turn(
        ConversationId::new(),
        TurnId::new(),
        CancellationToken::new(),
    );
    let mut samples = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let started = Instant::now();
        let _ = registry.execute(&invocation, &context).await;
        samples.push(started.elapsed());
    }
    median(samples)
}

/// `RULES` rules: allow, ask and deny prefixes of commands that do not match.
fn many_rules() -> Result<PermissionRules, String> {
    let parse = |text: String| {
        PermissionRule::parse(&text, &permission_argument).map_err(|e| e.to_string())
    };
    let mut rules = PermissionRules {
        default_mode: DefaultMode::Ask,
        ..PermissionRules::default()
    };
    for k in 0..RULES {
        let rule = parse(format!("ExecuteCommand(tool{k} sub{k}:*)"))?;
        match k % 3 {
            0 => rules.allow.push(rule),
            1 => rules.ask.push(rule),
            _ => rules.deny.push(rule),
        }
    }
    Ok(rules)
}

/// The mean time of one decision on a command line by `rules`.
fn decision_time(rules: &PermissionRules) -> Duration {
    let subject = CallSubject::command("ExecuteCommand", "git status && cargo test -p core");
    let started = Instant::now();
    for _ in 0..DECISIONS {
        std::hint::black_box(decide(rules, std::hint::black_box(&subject)));
    }
    started.elapsed() / DECISIONS
}

/// Runs the hook and rule benchmarks.
pub async fn run() -> Result<Vec<Figure>, String> {
    let home = tempfile::tempdir().map_err(|e| e.to_string())?;
    std::fs::create_dir_all(home.path().join("workspace")).map_err(|e| e.to_string())?;
    let plain = call_time(&registry(None)).await;
    let hooked = call_time(&registry(Some(no_op_hook(home.path())))).await;
    let extra = hooked.saturating_sub(plain);
    let rules = many_rules()?;
    let hundred = decision_time(&rules);
    let none = decision_time(&PermissionRules::default());
    Ok(vec![
        Figure {
            name: "hooks: a tool call through one no-op command hook (PreToolUse)".into(),
            value: ms(hooked),
            baseline: format!("{} without hooks", ms(plain)),
            ratio: format!("+{} per call", ms(extra)),
            target: format!(
                "≤ 3 ms more per call: {}",
                if extra <= Duration::from_millis(3) {
                    "met"
                } else {
                    "NOT met"
                }
            ),
        },
        Figure {
            name: format!("hooks: permission rules, one decision against {RULES} rules"),
            value: format!("{:.2} µs", hundred.as_secs_f64() * 1e6),
            baseline: format!("{:.2} µs against no rules", none.as_secs_f64() * 1e6),
            ratio: format!(
                "{:.1}×",
                hundred.as_secs_f64() / none.as_secs_f64().max(1e-12)
            ),
            target: format!(
                "≤ 20 µs per call: {}",
                if hundred <= Duration::from_micros(20) {
                    "met"
                } else {
                    "NOT met"
                }
            ),
        },
    ])
}
