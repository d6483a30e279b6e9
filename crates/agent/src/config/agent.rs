//! `agent.json`: the agent's behaviour settings ([`AgentSettings`]).

use std::collections::BTreeMap;
use std::path::Path;
use std::time::Duration;

use schemars::JsonSchema;
use serde::Deserialize;

use smallebot_checkpoints::CheckpointSettings;
use smallebot_core::rules::attachment::AttachmentLimits;
use smallebot_core::rules::permission::PermissionRules;
use smallebot_core::rules::upload_quota::UploadQuotas;

use super::ConfigError;
use super::attachments::RawAttachments;
use super::budgets::RawBudgets;
use super::checkpoints::RawCheckpoints;
use super::command_env::{CommandEnvironment, RawCommandEnvironment};
pub use super::file_names::AGENT_FILE;
use super::json::{parse_keys, read_optional};
use super::permissions::RawPermissions;
use super::tool_loading::{McpToolLoading, RawToolLoading};
use crate::tools::ReadConversationData;
use smallebot_core::rules::budget::Budgets;

/// How earlier tool calls are written into the history sent to the model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ToolHistoryFormat {
    /// Native OpenAI `tool_calls` plus `tool` result messages (`"native"`, the default).
    #[default]
    Native,
    /// Summary lines `[Tool: Name(args)] → result` appended to the assistant message
    /// (`"inline"`), for endpoints that handle native tool history badly.
    Inline,
}

/// Settings from `<home>/agent.json` (camelCase keys), already range-checked.
///
/// A missing file gives [`AgentSettings::default`]; a missing key gives that key's
/// default. Out-of-range values are corrected by the rules documented on each field.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentSettings {
    /// `toolResultMaxLength`: chars of a tool result sent to the model (default 500;
    /// below 100 → 500, above 10000 → 10000).
    pub tool_result_max_length: usize,
    /// `toolResultMaxLengthByTool`: per tool name, its own `toolResultMaxLength` (same
    /// range rules, except that a value below 100 means the global value). Tools not
    /// listed use the global value. Built in: `ReadConversationData` 4000 (its pages
    /// are sized to fit it).
    pub tool_result_max_length_by_tool: BTreeMap<String, usize>,
    /// `compressionThreshold`: fraction of the context window at which history is
    /// compressed (default 0.8; below 0.5 or non-finite → 0.8, above 0.95 → 0.95).
    pub compression_threshold: f64,
    /// `keepRecentTurns`: turns kept verbatim by compression (default 2; at least 1, so
    /// the current turn is always kept).
    pub keep_recent_turns: usize,
    /// `maxToolSteps`: model/tool round trips allowed in one turn (default 50; 1..=500).
    pub max_tool_steps: usize,
    /// `maxParallelAgents`: sub-agents (`Delegate` calls) running at once (default 4;
    /// 1..=32); the others wait their turn.
    pub max_parallel_agents: usize,
    /// `toolHistoryFormat`: `"native"` (default) or `"inline"`.
    pub tool_history_format: ToolHistoryFormat,
    /// `streamIdleTimeoutSeconds`: how long a model stream may send nothing, once its
    /// first byte came, before the call fails (default 120 s; at least 1 s).
    pub stream_idle_timeout: Duration,
    /// `firstByteTimeoutSeconds`: how long a request may wait for the first byte of its
    /// answer — queued behind other requests on the server, reading a long prompt —
    /// before the call fails (default 600 s; at least 1 s).
    pub first_byte_timeout: Duration,
    /// `userName`: the default user of new conversations (default none: the host falls
    /// back to `USER` or `"local"`). Blank counts as none.
    pub user_name: Option<String>,
    /// `systemPrompt`: extra base instructions for the system prompt (default none).
    /// Blank counts as none.
    pub system_prompt: Option<String>,
    /// `requestMaxRetries`: retries of a request that fails before its response body
    /// starts (429, 5xx, connection errors; default 4, 0..=20).
    pub request_max_retries: u32,
    /// `streamMaxRetries`: retries of a request whose response stream broke after it
    /// started (cut, malformed chunk, idle past the timeout, no finish reason; default 5,
    /// 0..=20).
    pub stream_max_retries: u32,
    /// `reasoningEffort`: what models with `supportsThinking` are asked for
    /// (`"low"`, `"medium"` (default) or `"high"`; models.json may set it per model).
    pub reasoning_effort: ReasoningEffort,
    /// `commandEnvironment`: what commands get besides the base environment (default
    /// nothing).
    pub command_environment: CommandEnvironment,
    /// `summaryMaxTokens`: the longest compression summary, in tokens — asked for in
    /// the summary request and sent as its `max_tokens` (default 500; 100..=16000,
    /// values outside clamped).
    pub summary_max_tokens: u32,
    /// `attachments`: the limits of files given with a message — `maxFileBytes`
    /// (default 20 MiB), `maxMessageBytes` (default 50 MiB, at least `maxFileBytes`),
    /// `maxInlineTokens` (default 8000: the most of a text file inlined into the
    /// message); each at least 1.
    pub attachments: AttachmentLimits,
    /// `checkpoints`: the size limits of a turn's checkpoint (`maxFileBytes`, default
    /// 10 MiB; `maxCheckpointBytes`, default 100 MiB), extra `ignore` rules and
    /// retention (`maxAgeDays`, default 30; `maxTotalBytes`, default 1 GiB).
    pub checkpoints: CheckpointSettings,
    /// `budgets`: what one turn (`perTurn`), one conversation (`perConversation`) and
    /// one user in a UTC day or month (`perUserDaily`, `perUserMonthly`) may spend, in
    /// the models' price currency; none set by default. A request that could pass one
    /// is not sent.
    pub budgets: Budgets,
    /// `attachments`, the quotas of uploads: `maxPendingBytesPerUser` (default 256
    /// MiB, at least `maxPendingBytesPerConversation`) and
    /// `maxPendingBytesPerConversation` (default 100 MiB, at least `maxMessageBytes`)
    /// of files uploaded and not sent yet, `maxPartsPerUpload` (default 32) parts in
    /// one upload request, `maxFilesPerMessage` (default 20) files on one message,
    /// `pendingExpirySeconds` (default 86400: a day) before an unsent upload is
    /// deleted; each at least 1.
    pub uploads: UploadQuotas,
    /// `permissions`: the rules that let tool calls run (`allow`), ask about them
    /// (`ask`) or refuse them (`deny`), and `defaultMode` (`"allow"`, the default, or
    /// `"ask"`) for calls no rule matches; see
    /// [`smallebot_core::rules::permission`]. terminal.json's command keys are mapped
    /// onto them by [`with_terminal_rules`](super::with_terminal_rules).
    pub permissions: PermissionRules,
    /// `mcp`: when MCP tools wait for `SearchTools` (`maxToolShare`, `maxTools`) and
    /// which never do (`pinnedTools`); see [`McpToolLoading`].
    pub mcp: McpToolLoading,
}

/// How hard a thinking model should reason (`reasoning_effort` in the request).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
#[non_exhaustive]
pub enum ReasoningEffort {
    /// `"low"`
    Low,
    /// `"medium"` (the default)
    #[default]
    Medium,
    /// `"high"`
    High,
}

impl ReasoningEffort {
    /// The word sent as `reasoning_effort`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
        }
    }
}

impl AgentSettings {
    /// The built-in `toolResultMaxLengthByTool` entry of `ReadConversationData`.
    pub const DEFAULT_CONVERSATION_DATA_PAGE: usize = 4000;
    /// Default of [`AgentSettings::tool_result_max_length`].
    pub const DEFAULT_TOOL_RESULT_MAX_LENGTH: usize = 500;
    /// Smallest accepted `toolResultMaxLength`; smaller values mean the default.
    pub const MIN_TOOL_RESULT_MAX_LENGTH: usize = 100;
    /// Largest `toolResultMaxLength`; larger values are clamped to it.
    pub const MAX_TOOL_RESULT_MAX_LENGTH: usize = 10_000;
    /// Default of [`AgentSettings::compression_threshold`].
    pub const DEFAULT_COMPRESSION_THRESHOLD: f64 = 0.8;
    /// Smallest accepted `compressionThreshold`; smaller values mean the default.
    pub const MIN_COMPRESSION_THRESHOLD: f64 = 0.5;
    /// Largest `compressionThreshold`; larger values are clamped to it.
    pub const MAX_COMPRESSION_THRESHOLD: f64 = 0.95;
    /// Default of [`AgentSettings::keep_recent_turns`].
    pub const DEFAULT_KEEP_RECENT_TURNS: usize = 2;
    /// Default of [`AgentSettings::max_tool_steps`].
    pub const DEFAULT_MAX_TOOL_STEPS: usize = 50;
    /// Largest `maxToolSteps`; larger values are clamped to it.
    pub const MAX_MAX_TOOL_STEPS: usize = 500;
    /// Default of [`AgentSettings::max_parallel_agents`].
    pub const DEFAULT_MAX_PARALLEL_AGENTS: usize = 4;
    /// Largest `maxParallelAgents`; larger values are clamped to it.
    pub const MAX_MAX_PARALLEL_AGENTS: usize = 32;
    /// Default of [`AgentSettings::stream_idle_timeout`], in seconds (long enough for a
    /// slow local model to produce its first token on a large prompt).
    pub const DEFAULT_STREAM_IDLE_TIMEOUT_SECONDS: u64 = 120;
    /// Default of [`AgentSettings::first_byte_timeout`], in seconds: a local server on
    /// a CPU may take minutes to read a long prompt, after waiting for its slot.
    pub const DEFAULT_FIRST_BYTE_TIMEOUT_SECONDS: u64 = 600;
    /// Default of [`AgentSettings::request_max_retries`].
    pub const DEFAULT_REQUEST_MAX_RETRIES: u32 = 4;
    /// Default of [`AgentSettings::stream_max_retries`].
    pub const DEFAULT_STREAM_MAX_RETRIES: u32 = 5;
    /// Largest accepted `requestMaxRetries` / `streamMaxRetries`.
    pub const MAX_RETRIES: u32 = 20;
    /// Default of [`AgentSettings::summary_max_tokens`] (the original compaction
    /// prompt asked for a summary under 500 tokens).
    pub const DEFAULT_SUMMARY_MAX_TOKENS: u32 = 500;
    /// Smallest `summaryMaxTokens`; smaller values are raised to it.
    pub const MIN_SUMMARY_MAX_TOKENS: u32 = 100;
    /// Largest `summaryMaxTokens`; larger values are clamped to it.
    pub const MAX_SUMMARY_MAX_TOKENS: u32 = 16_000;

    /// Loads `<home>/agent.json`; defaults when the file does not exist.
    ///
    /// # Errors
    /// [`ConfigError::Io`] when the file exists but cannot be read, and the errors of
    /// [`AgentSettings::from_json`].
    pub fn load(home: &Path) -> Result<Self, ConfigError> {
        let file = home.join(AGENT_FILE);
        match read_optional(&file)? {
            Some(text) => Self::from_json(&text, &file),
            None => Ok(Self::default()),
        }
    }

    /// Parses the content of an `agent.json` (`file` is only used in errors).
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] (with line and column) for invalid JSON, a value of the
    /// wrong type, an unknown key, an unknown `toolHistoryFormat`, or a permission rule
    /// that is malformed or names an unknown tool.
    pub fn from_json(text: &str, file: &Path) -> Result<Self, ConfigError> {
        let mut raw: RawAgentFile = parse_keys(text, file, "the agent settings")?;
        let retries = |key: &str, value: Option<i64>, default: u32| match value {
            None => Ok(default),
            Some(n) => u32::try_from(n)
                .ok()
                .filter(|n| *n <= Self::MAX_RETRIES)
                .ok_or_else(|| ConfigError::Rule {
                    file: file.to_path_buf(),
                    message: format!("{key} must be between 0 and {}, got {n}", Self::MAX_RETRIES),
                }),
        };
        let request_max_retries = retries(
            "requestMaxRetries",
            raw.request_max_retries,
            Self::DEFAULT_REQUEST_MAX_RETRIES,
        )?;
        let stream_max_retries = retries(
            "streamMaxRetries",
            raw.stream_max_retries,
            Self::DEFAULT_STREAM_MAX_RETRIES,
        )?;
        let command_environment = raw
            .command_environment
            .take()
            .unwrap_or_default()
            .into_settings(file)?;
        let (attachments, uploads) = raw
            .attachments
            .take()
            .unwrap_or_default()
            .into_limits(file)?;
        let checkpoints = raw
            .checkpoints
            .take()
            .unwrap_or_default()
            .into_settings(file)?;
        let budgets = raw.budgets.take().unwrap_or_default().into_budgets(file)?;
        let permissions = raw
            .permissions
            .take()
            .unwrap_or_default()
            .into_rules(text, file)?;
        let mcp = raw.mcp.take().unwrap_or_default().into_settings(file)?;
        let mut settings = raw.into_settings();
        settings.mcp = mcp;
        settings.budgets = budgets;
        settings.permissions = permissions;
        settings.checkpoints = checkpoints;
        settings.attachments = attachments;
        settings.uploads = uploads;
        settings.command_environment = command_environment;
        settings.request_max_retries = request_max_retries;
        settings.stream_max_retries = stream_max_retries;
        Ok(settings)
    }
}

impl Default for AgentSettings {
    fn default() -> Self {
        Self {
            tool_result_max_length: Self::DEFAULT_TOOL_RESULT_MAX_LENGTH,
            tool_result_max_length_by_tool: BTreeMap::from([(
                ReadConversationData::NAME.to_owned(),
                Self::DEFAULT_CONVERSATION_DATA_PAGE,
            )]),
            compression_threshold: Self::DEFAULT_COMPRESSION_THRESHOLD,
            keep_recent_turns: Self::DEFAULT_KEEP_RECENT_TURNS,
            max_tool_steps: Self::DEFAULT_MAX_TOOL_STEPS,
            max_parallel_agents: Self::DEFAULT_MAX_PARALLEL_AGENTS,
            tool_history_format: ToolHistoryFormat::default(),
            stream_idle_timeout: Duration::from_secs(Self::DEFAULT_STREAM_IDLE_TIMEOUT_SECONDS),
            first_byte_timeout: Duration::from_secs(Self::DEFAULT_FIRST_BYTE_TIMEOUT_SECONDS),
            user_name: None,
            system_prompt: None,
            request_max_retries: Self::DEFAULT_REQUEST_MAX_RETRIES,
            stream_max_retries: Self::DEFAULT_STREAM_MAX_RETRIES,
            reasoning_effort: ReasoningEffort::default(),
            command_environment: CommandEnvironment::default(),
            summary_max_tokens: Self::DEFAULT_SUMMARY_MAX_TOKENS,
            attachments: AttachmentLimits::default(),
            checkpoints: CheckpointSettings::default(),
            budgets: Budgets::default(),
            uploads: UploadQuotas::default(),
            permissions: PermissionRules::default(),
            mcp: McpToolLoading::default(),
        }
    }
}

/// `agent.json` as written: every key optional, integers signed so that a negative
/// value is corrected by the range rules instead of failing as a type error.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawAgentFile {
    tool_result_max_length: Option<i64>,
    tool_result_max_length_by_tool: Option<BTreeMap<String, i64>>,
    compression_threshold: Option<f64>,
    keep_recent_turns: Option<i64>,
    max_tool_steps: Option<i64>,
    max_parallel_agents: Option<i64>,
    tool_history_format: Option<ToolHistoryFormat>,
    stream_idle_timeout_seconds: Option<i64>,
    first_byte_timeout_seconds: Option<i64>,
    user_name: Option<String>,
    system_prompt: Option<String>,
    request_max_retries: Option<i64>,
    stream_max_retries: Option<i64>,
    reasoning_effort: Option<ReasoningEffort>,
    command_environment: Option<RawCommandEnvironment>,
    summary_max_tokens: Option<i64>,
    attachments: Option<RawAttachments>,
    checkpoints: Option<RawCheckpoints>,
    budgets: Option<RawBudgets>,
    permissions: Option<RawPermissions>,
    mcp: Option<RawToolLoading>,
}

impl RawAgentFile {
    fn into_settings(self) -> AgentSettings {
        let defaults = AgentSettings::default();
        let global = self
            .tool_result_max_length
            .map_or(defaults.tool_result_max_length, tool_result_max_length);
        let mut by_tool = defaults.tool_result_max_length_by_tool.clone();
        for (tool, value) in self.tool_result_max_length_by_tool.unwrap_or_default() {
            by_tool.insert(tool, per_tool_max_length(value, global));
        }
        AgentSettings {
            tool_result_max_length: global,
            tool_result_max_length_by_tool: by_tool,
            compression_threshold: self
                .compression_threshold
                .map_or(defaults.compression_threshold, compression_threshold),
            keep_recent_turns: self
                .keep_recent_turns
                .map_or(defaults.keep_recent_turns, |n| clamp(n, 1, usize::MAX)),
            max_tool_steps: self.max_tool_steps.map_or(defaults.max_tool_steps, |n| {
                clamp(n, 1, AgentSettings::MAX_MAX_TOOL_STEPS)
            }),
            max_parallel_agents: self
                .max_parallel_agents
                .map_or(defaults.max_parallel_agents, |n| {
                    clamp(n, 1, AgentSettings::MAX_MAX_PARALLEL_AGENTS)
                }),
            tool_history_format: self.tool_history_format.unwrap_or_default(),
            stream_idle_timeout: self
                .stream_idle_timeout_seconds
                .map_or(defaults.stream_idle_timeout, seconds),
            first_byte_timeout: self
                .first_byte_timeout_seconds
                .map_or(defaults.first_byte_timeout, seconds),
            user_name: non_blank(self.user_name),
            system_prompt: non_blank(self.system_prompt),
            request_max_retries: defaults.request_max_retries,
            stream_max_retries: defaults.stream_max_retries,
            reasoning_effort: self.reasoning_effort.unwrap_or_default(),
            command_environment: CommandEnvironment::default(),
            summary_max_tokens: self
                .summary_max_tokens
                .map_or(defaults.summary_max_tokens, summary_max_tokens),
            attachments: defaults.attachments,
            checkpoints: defaults.checkpoints,
            budgets: defaults.budgets,
            uploads: defaults.uploads,
            permissions: defaults.permissions,
            mcp: defaults.mcp,
        }
    }
}

/// `toolResultMaxLength` rule: below the minimum → default, above the maximum → maximum.
fn tool_result_max_length(value: i64) -> usize {
    let min = AgentSettings::MIN_TOOL_RESULT_MAX_LENGTH;
    match usize::try_from(value) {
        Ok(n) if n >= min => n.min(AgentSettings::MAX_TOOL_RESULT_MAX_LENGTH),
        _ => AgentSettings::DEFAULT_TOOL_RESULT_MAX_LENGTH,
    }
}

/// `toolResultMaxLengthByTool` rule: as `toolResultMaxLength`, but below the minimum
/// means the global value.
fn per_tool_max_length(value: i64, global: usize) -> usize {
    match usize::try_from(value) {
        Ok(n) if n >= AgentSettings::MIN_TOOL_RESULT_MAX_LENGTH => {
            n.min(AgentSettings::MAX_TOOL_RESULT_MAX_LENGTH)
        }
        _ => global,
    }
}

/// `compressionThreshold` rule: below the minimum or non-finite → default, above the
/// maximum → maximum.
fn compression_threshold(value: f64) -> f64 {
    if !value.is_finite() || value < AgentSettings::MIN_COMPRESSION_THRESHOLD {
        AgentSettings::DEFAULT_COMPRESSION_THRESHOLD
    } else {
        value.min(AgentSettings::MAX_COMPRESSION_THRESHOLD)
    }
}

/// A number of seconds, at least 1.
fn seconds(value: i64) -> Duration {
    Duration::from_secs(u64::try_from(value.max(1)).unwrap_or(1))
}

/// `summaryMaxTokens` rule: clamped into its range.
fn summary_max_tokens(value: i64) -> u32 {
    let (min, max) = (
        AgentSettings::MIN_SUMMARY_MAX_TOKENS,
        AgentSettings::MAX_SUMMARY_MAX_TOKENS,
    );
    u32::try_from(value.clamp(i64::from(min), i64::from(max))).unwrap_or(max)
}

/// Clamps a signed value into `min..=max`.
fn clamp(value: i64, min: usize, max: usize) -> usize {
    usize::try_from(value).map_or(min, |n| n.clamp(min, max))
}

/// `None` for a missing or whitespace-only string.
fn non_blank(value: Option<String>) -> Option<String> {
    value.filter(|s| !s.trim().is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clamp_handles_negative_and_huge_values() {
        assert_eq!(clamp(-3, 1, 500), 1);
        assert_eq!(clamp(0, 1, 500), 1);
        assert_eq!(clamp(7, 1, 500), 7);
        assert_eq!(clamp(i64::MAX, 1, 500), 500);
    }

    #[test]
    fn summary_max_tokens_is_clamped_into_its_range() {
        for (value, expected) in [
            (-5, 100),
            (0, 100),
            (99, 100),
            (100, 100),
            (500, 500),
            (16_000, 16_000),
            (i64::MAX, 16_000),
        ] {
            assert_eq!(summary_max_tokens(value), expected, "{value}");
        }
    }

    #[test]
    fn non_finite_threshold_is_the_default() {
        assert!((compression_threshold(f64::NAN) - 0.8).abs() < f64::EPSILON);
        assert!((compression_threshold(f64::INFINITY) - 0.8).abs() < f64::EPSILON);
    }
}
