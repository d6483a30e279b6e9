//! `hooks.json`: the owner's programs run at fixed points of a turn, in the shape
//! Claude Code uses. Only the home's owner writes it; web users never configure hooks.
//!
//! ```json
//! {
//!   "hooks": {
//!     "PreToolUse": [
//!       { "matcher": "ExecuteCommand|WriteFile",
//!         "hooks": [{ "type": "command", "command": "~/bin/check-call", "timeout": 30 }] }
//!     ],
//!     "UserPromptSubmit": [{ "hooks": [{ "type": "command", "command": "date" }] }]
//!   }
//! }
//! ```
//!
//! Events: see [`HookEvent`]. `matcher` (tool names joined by `|`, a regular
//! expression on the whole name, or `*`) applies to `PreToolUse` and `PostToolUse`
//! only. `timeout` is in seconds (default 60, at most 3600). The only hook type is
//! `command`.

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use serde_json::{Map, Value};
use smallebot_core::rules::hook::{HookEvent, Matcher};

use super::ConfigError;
use super::json::{parse, read_optional};

/// The name of the hooks file inside the home directory.
pub const HOOKS_FILE: &str = "hooks.json";

/// A hook's time limit when its entry gives none, in seconds.
pub const DEFAULT_HOOK_TIMEOUT_SECONDS: u64 = 60;

/// The largest `timeout` accepted, in seconds.
const MAX_HOOK_TIMEOUT_SECONDS: u64 = 3600;

/// The hooks of a home, by event.
#[derive(Debug, Clone, Default)]
pub struct HooksConfig {
    /// Each event's entries, in the file's order.
    pub events: BTreeMap<HookEvent, Vec<HookEntry>>,
}

/// One entry: the hooks run for the tools its matcher selects.
#[derive(Debug, Clone)]
pub struct HookEntry {
    /// The tools it applies to (every tool for events without tools).
    pub matcher: Matcher,
    /// Its commands.
    pub hooks: Vec<HookCommand>,
}

/// One command hook.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookCommand {
    /// The command line, run by `/bin/sh -c`.
    pub command: String,
    /// How long it may run before it is killed.
    pub timeout: Duration,
}

impl HooksConfig {
    /// Whether no hook is configured.
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.events.values().all(Vec::is_empty)
    }

    /// The hooks of `event` that apply to the tool `tool` (every hook of the event when
    /// `tool` is `None` or the event has no tools).
    #[must_use]
    pub fn commands(&self, event: HookEvent, tool: Option<&str>) -> Vec<&HookCommand> {
        let Some(entries) = self.events.get(&event) else {
            return Vec::new();
        };
        entries
            .iter()
            .filter(|entry| match tool {
                Some(tool) if event.matches_tools() => entry.matcher.matches(tool),
                _ => true,
            })
            .flat_map(|entry| &entry.hooks)
            .collect()
    }
}

/// Loads `<home>/hooks.json` (no hooks when it does not exist).
///
/// # Errors
/// [`ConfigError::Invalid`] for JSON that does not parse, [`ConfigError::Rule`]
/// naming the file and the entry for an unknown event, a bad matcher, a hook type
/// other than `command`, a missing command or a timeout out of range.
pub fn load_hooks(home: &Path) -> Result<HooksConfig, ConfigError> {
    let file = home.join(HOOKS_FILE);
    match read_optional(&file)? {
        Some(text) => hooks_from_json(&text, &file),
        None => Ok(HooksConfig::default()),
    }
}

/// Parses the content of a hooks.json (`file` is only used in errors).
///
/// # Errors
/// As [`load_hooks`].
pub fn hooks_from_json(text: &str, file: &Path) -> Result<HooksConfig, ConfigError> {
    let value: Value = parse(text, file)?;
    let rule = |message: String| ConfigError::Rule {
        file: file.to_path_buf(),
        message,
    };
    let Value::Object(mut top) = value else {
        return Err(rule(
            "expected a JSON object: {\"hooks\": {EVENT: [...]}}".into(),
        ));
    };
    let events = match top.remove("hooks") {
        Some(Value::Object(events)) => events,
        Some(_) => return Err(rule("\"hooks\" must be an object of events".into())),
        None if top.is_empty() => return Ok(HooksConfig::default()),
        None => return Err(rule("expected the key \"hooks\" holding the events".into())),
    };
    if let Some(key) = top.keys().next() {
        return Err(rule(format!(
            "unknown key \"{key}\"; the file holds only \"hooks\""
        )));
    }
    let mut config = HooksConfig::default();
    for (name, entries) in events {
        let event = HookEvent::parse(&name).ok_or_else(|| {
            let known: Vec<&str> = HookEvent::ALL.iter().map(|e| e.name()).collect();
            rule(format!(
                "hooks.{name}: unknown event; the events are {}",
                known.join(", ")
            ))
        })?;
        let Value::Array(entries) = entries else {
            return Err(rule(format!("hooks.{name}: expected a list of entries")));
        };
        let parsed = entries
            .into_iter()
            .enumerate()
            .map(|(index, entry)| entry_of(event, &format!("hooks.{name}[{index}]"), entry))
            .collect::<Result<Vec<_>, String>>()
            .map_err(rule)?;
        config.events.insert(event, parsed);
    }
    Ok(config)
}

/// One entry at `at` (`hooks.PreToolUse[0]`), or what is wrong with it.
fn entry_of(event: HookEvent, at: &str, entry: Value) -> Result<HookEntry, String> {
    let Value::Object(mut entry) = entry else {
        return Err(format!("{at}: expected an object with \"hooks\""));
    };
    let matcher = match entry.remove("matcher") {
        None => Matcher::All,
        Some(Value::String(text)) => {
            if !event.matches_tools() && !matches!(text.trim(), "" | "*") {
                return Err(format!(
                    "{at}.matcher: {event} has no tools to match; remove the matcher"
                ));
            }
            Matcher::parse(&text).map_err(|error| format!("{at}.matcher: {error}"))?
        }
        Some(_) => return Err(format!("{at}.matcher: expected a string")),
    };
    let hooks = match entry.remove("hooks") {
        Some(Value::Array(hooks)) => hooks,
        _ => return Err(format!("{at}: expected \"hooks\", a list of hooks")),
    };
    if let Some(key) = entry.keys().next() {
        return Err(format!(
            "{at}: unknown key \"{key}\"; an entry has \"matcher\" and \"hooks\""
        ));
    }
    let hooks = hooks
        .into_iter()
        .enumerate()
        .map(|(index, hook)| command_of(&format!("{at}.hooks[{index}]"), hook))
        .collect::<Result<_, _>>()?;
    Ok(HookEntry { matcher, hooks })
}

/// One hook at `at`, or what is wrong with it.
fn command_of(at: &str, hook: Value) -> Result<HookCommand, String> {
    let Value::Object(mut hook) = hook else {
        return Err(format!(
            "{at}: expected an object with \"type\" and \"command\""
        ));
    };
    match hook.remove("type") {
        Some(Value::String(kind)) if kind == "command" => {}
        Some(Value::String(kind)) => {
            return Err(format!(
                "{at}.type: unknown type \"{kind}\"; the only type is \"command\""
            ));
        }
        _ => return Err(format!("{at}: expected \"type\": \"command\"")),
    }
    let command = match hook.remove("command") {
        Some(Value::String(command)) if !command.trim().is_empty() => command,
        _ => return Err(format!("{at}.command: expected a command line")),
    };
    let timeout = timeout_of(at, &mut hook)?;
    if let Some(key) = hook.keys().next() {
        return Err(format!(
            "{at}: unknown key \"{key}\"; a hook has \"type\", \"command\" and \"timeout\""
        ));
    }
    Ok(HookCommand { command, timeout })
}

/// `timeout` (seconds) taken out of `hook`, or the default.
fn timeout_of(at: &str, hook: &mut Map<String, Value>) -> Result<Duration, String> {
    let seconds = match hook.remove("timeout") {
        None => DEFAULT_HOOK_TIMEOUT_SECONDS,
        Some(value) => value
            .as_u64()
            .filter(|s| (1..=MAX_HOOK_TIMEOUT_SECONDS).contains(s))
            .ok_or_else(|| {
                format!(
                    "{at}.timeout: expected whole seconds from 1 to {MAX_HOOK_TIMEOUT_SECONDS}, \
                     got {value}"
                )
            })?,
    };
    Ok(Duration::from_secs(seconds))
}

#[cfg(test)]
#[path = "hooks_tests.rs"]
mod tests;
