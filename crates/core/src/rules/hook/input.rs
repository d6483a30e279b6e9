//! [`HookInput`]: what a hook reads on its standard input.

use serde::Serialize;

use super::HookEvent;

/// The JSON object a hook gets on standard input (fields that do not apply to the
/// event are left out).
///
/// ```json
/// {"hook_event_name": "PreToolUse", "session_id": "…", "conversation_id": "…",
///  "turn_id": "…", "cwd": "/home/me/.smallebot/workspace",
///  "tool_name": "ExecuteCommand", "tool_input": {"command": "ls"}}
/// ```
#[derive(Debug, Clone, Default, Serialize)]
pub struct HookInput {
    /// The event's name.
    pub hook_event_name: String,
    /// The conversation (also as `session_id`, the name Claude Code's hooks read).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub session_id: Option<String>,
    /// The conversation.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub conversation_id: Option<String>,
    /// The turn.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub turn_id: Option<String>,
    /// The directory the hook runs in (the home's workspace).
    pub cwd: String,
    /// The tool (PreToolUse, PostToolUse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_name: Option<String>,
    /// The model's id of the call (PreToolUse, PostToolUse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_use_id: Option<String>,
    /// The call's arguments (PreToolUse, PostToolUse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_input: Option<serde_json::Value>,
    /// The call's result: `{"content": …, "status": …}` (PostToolUse).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_response: Option<serde_json::Value>,
    /// The person's prompt (UserPromptSubmit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub prompt: Option<String>,
    /// What started a compression, `manual` or `auto` (PreCompact); how a session
    /// started or ended (SessionStart, SessionEnd).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub trigger: Option<String>,
    /// Whether a Stop hook already made this turn go on (Stop, SubagentStop).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_hook_active: Option<bool>,
}

impl HookInput {
    /// The input of `event` in the directory `cwd`, for the conversation and turn given.
    #[must_use]
    pub fn new(
        event: HookEvent,
        cwd: String,
        conversation: Option<String>,
        turn: Option<String>,
    ) -> Self {
        Self {
            hook_event_name: event.name().to_owned(),
            session_id: conversation.clone(),
            conversation_id: conversation,
            turn_id: turn,
            cwd,
            ..Self::default()
        }
    }
}
