//! `mcp` in agent.json: when MCP tools are loaded on demand through `SearchTools`
//! instead of being sent with every request, and which are always sent
//! ([`McpToolLoading`]).
//!
//! ```json
//! { "mcp": { "pinnedTools": ["mcp__files__read"], "maxToolShare": 0.1, "maxTools": 50 } }
//! ```

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_core::rules::permission::MCP_PREFIX;
use smallebot_core::rules::tool_search::ToolLoading;

use super::ConfigError;

/// `mcp` as written; a key left out keeps its default.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "the MCP tool loading settings"))]
pub(super) struct RawToolLoading {
    pinned_tools: Option<Vec<String>>,
    max_tool_share: Option<f64>,
    max_tools: Option<i64>,
}

/// agent.json `mcp`: when the MCP tools wait for a search, and those that never do.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct McpToolLoading {
    /// `maxToolShare` (default 0.10, 0 to 1) and `maxTools` (default 50, at least 0):
    /// the MCP tools not pinned wait for `SearchTools` when their schemas would take
    /// more than that share of the context window, or when there are more of them.
    pub loading: ToolLoading,
    /// `pinnedTools`, named `mcp__<server>__<tool>` as in permission rules: sent with
    /// every request. Held here as the registry names them (`<server>__<tool>`).
    pub pinned: Vec<String>,
}

impl RawToolLoading {
    /// The settings, each checked.
    ///
    /// # Errors
    /// [`ConfigError::Rule`] naming `file` and the key: a `maxToolShare` that is not a
    /// number from 0 to 1, a negative `maxTools`, a pinned tool not named
    /// `mcp__<server>__<tool>`.
    pub(super) fn into_settings(self, file: &Path) -> Result<McpToolLoading, ConfigError> {
        let rule = |message: String| ConfigError::Rule {
            file: file.to_path_buf(),
            message,
        };
        let max_share = match self.max_tool_share {
            None => ToolLoading::DEFAULT_MAX_SHARE,
            Some(share) if (0.0..=1.0).contains(&share) => share,
            Some(share) => {
                return Err(rule(format!(
                    "mcp.maxToolShare must be a share of the context window from 0 to 1 \
                     (0.1 is 10 %), got {share}"
                )));
            }
        };
        let max_tools = match self.max_tools {
            None => ToolLoading::DEFAULT_MAX_TOOLS,
            Some(n) => usize::try_from(n)
                .map_err(|_| rule(format!("mcp.maxTools must be 0 or more, got {n}")))?,
        };
        let pinned = self
            .pinned_tools
            .unwrap_or_default()
            .into_iter()
            .map(|name| {
                pinned_name(&name).ok_or_else(|| {
                    rule(format!(
                        "mcp.pinnedTools: \"{name}\" is not an MCP tool name; write \
                         {MCP_PREFIX}<server>__<tool>, the server as in mcp.json and the tool \
                         as `smallebot mcp tools` lists it (e.g. \"{MCP_PREFIX}files__read\")"
                    ))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok(McpToolLoading {
            loading: ToolLoading {
                max_share,
                max_tools,
            },
            pinned,
        })
    }
}

/// The registry name (`server__tool`) of a pinned tool written `mcp__server__tool`, or
/// `None` when it is not written so (no prefix, an empty server or tool, a glob).
fn pinned_name(written: &str) -> Option<String> {
    let rest = written.strip_prefix(MCP_PREFIX)?;
    let (server, tool) = rest.split_once("__")?;
    let bad = |part: &str| part.is_empty() || part.contains(['*', '?', ' ', '(']);
    (!bad(server) && !bad(tool)).then(|| rest.to_owned())
}

#[cfg(test)]
mod tests {
    use super::pinned_name;

    #[test]
    fn pinned_tools_are_named_as_in_permission_rules() {
        let cases = [
            ("mcp__files__read", Some("files__read")),
            ("mcp__git__log__all", Some("git__log__all")),
            ("files__read", None),
            ("mcp__files", None),
            ("mcp____read", None),
            ("mcp__files__", None),
            ("mcp__files__*", None),
            ("ReadFile", None),
        ];
        for (written, expected) in cases {
            assert_eq!(pinned_name(written).as_deref(), expected, "{written}");
        }
    }
}
