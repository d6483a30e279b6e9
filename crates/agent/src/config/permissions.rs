//! `permissions` in agent.json: the rules that let tool calls run, ask about them or
//! refuse them ([`PermissionRules`]; the rules and the decision are
//! [`smallebot_core::rules::permission`]'s), and terminal.json's older command keys
//! mapped onto them ([`with_terminal_rules`]).
//!
//! ```json
//! { "permissions": {
//!     "allow": ["ExecuteCommand(cargo test:*)", "WriteFile(docs/**)", "mcp__files__read_*"],
//!     "ask": ["ExecuteCommand(git push:*)"],
//!     "deny": ["ExecuteCommand(curl:*)", "ReadFile(**/.env)"],
//!     "defaultMode": "allow" } }
//! ```

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_core::rules::permission::{
    DefaultMode, MCP_PREFIX, PermissionRule, PermissionRules, exact_command_rules,
};
use smallebot_shell::command_words;

use super::keys::error_at_value;
use super::{ConfigError, TerminalSettings};
use crate::tools::{BUILT_IN_TOOL_NAMES, ExecuteCommand, permission_argument};

/// `defaultMode` as written.
#[derive(Debug, Clone, Copy, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(super) enum RawDefaultMode {
    /// `"ask"`
    Ask,
    /// `"allow"`
    Allow,
}

/// `permissions` as written; a key left out is an empty list, `defaultMode` `"allow"`.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "the permission settings"))]
pub(super) struct RawPermissions {
    allow: Option<Vec<String>>,
    ask: Option<Vec<String>>,
    deny: Option<Vec<String>>,
    default_mode: Option<RawDefaultMode>,
}

impl RawPermissions {
    /// The rules, each parsed and its tool checked; `text` is the content of `file`,
    /// for the positions of errors.
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] at the rule, naming the list and the rule: a malformed
    /// rule (what is wrong with it) or an unknown tool.
    pub(super) fn into_rules(
        self,
        text: &str,
        file: &Path,
    ) -> Result<PermissionRules, ConfigError> {
        let list = |key: &str, rules: Option<Vec<String>>| {
            rules
                .unwrap_or_default()
                .iter()
                .enumerate()
                .map(|(at, rule)| {
                    parse_permission_rule(rule).map_err(|why| {
                        error_at_value(
                            text,
                            file,
                            key,
                            rule,
                            format!("permissions.{key}[{at}]: {why}"),
                        )
                    })
                })
                .collect::<Result<Vec<_>, _>>()
        };
        Ok(PermissionRules {
            allow: list("allow", self.allow)?,
            ask: list("ask", self.ask)?,
            deny: list("deny", self.deny)?,
            default_mode: match self.default_mode {
                Some(RawDefaultMode::Ask) => DefaultMode::Ask,
                Some(RawDefaultMode::Allow) | None => DefaultMode::Allow,
            },
            tool_defaults: std::collections::BTreeMap::new(),
        })
    }
}

/// A rule parsed as agent.json's are, naming a built-in tool or an MCP tool (the tool is
/// checked first: `Bash(ls)` is an unknown tool before it is a tool that takes no
/// pattern); a user's own rules (`smallebot users set NAME --deny RULE`) are checked
/// with it too.
///
/// # Errors
/// What is wrong with the rule, naming it: an unknown tool, a malformed rule.
pub fn parse_permission_rule(text: &str) -> Result<PermissionRule, String> {
    let tool = text.split('(').next().unwrap_or_default().trim();
    let is_name = tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !tool.is_empty()
        && is_name
        && !tool.starts_with(MCP_PREFIX)
        && !BUILT_IN_TOOL_NAMES.contains(&tool)
    {
        return Err(format!(
            "permission rule `{}` names the tool `{tool}`, which does not exist; the tools \
             are {}, and MCP tools as `mcp__<server>__<tool>`",
            text.trim(),
            BUILT_IN_TOOL_NAMES.join(", ")
        ));
    }
    PermissionRule::parse(text, &permission_argument).map_err(|error| error.to_string())
}

/// `rules` with terminal.json's command keys mapped onto them: each `commandWhitelist`
/// entry allows its simple commands exactly (`ExecuteCommand(<words>)`; an entry of
/// several commands allows each of them), and `requireCommandConfirmation` makes
/// `ExecuteCommand`'s default `ask`. `terminal_file` is named in errors.
///
/// # Errors
/// [`ConfigError::Rule`] naming `terminal_file` and the entry: a whitelist entry that
/// does not parse, one with a word whose value is only known when it runs (`$X`,
/// `*.rs`), which no rule can match exactly, or one writing its output to a file.
pub fn with_terminal_rules(
    mut rules: PermissionRules,
    terminal: &TerminalSettings,
    terminal_file: &Path,
) -> Result<PermissionRules, ConfigError> {
    let tool = ExecuteCommand::NAME;
    let invalid = |entry: &str, why: String| ConfigError::Rule {
        file: terminal_file.to_path_buf(),
        message: format!(
            "commandWhitelist entry `{entry}` cannot be an {tool} rule: {why}; \
             remove it, or write a rule in agent.json's permissions.allow instead (such as \
             `{tool}(ls:*)` for every `ls` command)"
        ),
    };
    for entry in &terminal.command_whitelist {
        let commands = command_words(entry).map_err(|error| invalid(entry, error.to_string()))?;
        for rule in exact_command_rules(tool, &commands).map_err(|why| invalid(entry, why))? {
            if !rules.allow.contains(&rule) {
                rules.allow.push(rule);
            }
        }
    }
    if terminal.require_command_confirmation {
        rules
            .tool_defaults
            .insert(tool.to_owned(), DefaultMode::Ask);
    }
    Ok(rules)
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
