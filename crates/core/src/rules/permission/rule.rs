//! One permission rule parsed from its text ([`PermissionRule::parse`]).

use std::fmt;

use smallebot_shell::{ShellWord, one_command_words};

use super::glob::{PathGlob, name_match};
use crate::skills::name_problem;

/// How rules name MCP tools: `mcp__<server>__<tool>`.
pub const MCP_PREFIX: &str = "mcp__";

/// What a tool's rules match its calls on (the tools are the agent's: it says which
/// kind each tool is when rules are parsed).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ArgumentKind {
    /// Command words (`ExecuteCommand`).
    Command,
    /// The workspace-relative path (the workspace file tools).
    Path,
    /// The agent's name (`Delegate`).
    Agent,
    /// An MCP resource as `server:uri`, matched by a glob (`*` any characters, `?` one):
    /// `ReadMcpResource(docs:file:///*)`.
    Resource,
    /// Nothing: the tool is named alone.
    None,
}

/// A permission rule that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PermissionRuleError {
    /// The rule's text is malformed.
    #[error("permission rule `{rule}` is invalid: {reason}")]
    Invalid {
        /// The rule as written.
        rule: String,
        /// What is wrong and how to write it.
        reason: String,
    },
}

/// A rule's argument pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Pattern {
    /// `ExecuteCommand(git status)`: exactly these words.
    Exact(Vec<String>),
    /// `ExecuteCommand(cargo test:*)`: these words first.
    Prefix(Vec<String>),
    /// `WriteFile(docs/**)`.
    Path(PathGlob),
    /// `Delegate(researcher)`.
    Agent(String),
    /// `ReadMcpResource(docs:note://*)`: a glob on `server:uri`.
    Resource(String),
}

/// A permission rule: a tool (or a glob on MCP tool names) and, optionally, a pattern on
/// the call's argument (see the [module](super) docs).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRule {
    text: String,
    tool: String,
    pattern: Option<Pattern>,
}

impl PermissionRule {
    /// Parses a rule (surrounding whitespace ignored); `kind_of` says what the
    /// patterns of each tool match on.
    ///
    /// ```
    /// use smallebot_core::rules::permission::{ArgumentKind, PermissionRule};
    /// let kind_of = |tool: &str| match tool {
    ///     "ExecuteCommand" => ArgumentKind::Command,
    ///     "WriteFile" => ArgumentKind::Path,
    ///     _ => ArgumentKind::None,
    /// };
    /// assert!(PermissionRule::parse("ExecuteCommand(cargo test:*)", &kind_of).is_ok());
    /// assert!(PermissionRule::parse("WriteFile(/etc/**)", &kind_of).is_err());
    /// assert!(PermissionRule::parse("GetCurrentTime(now)", &kind_of).is_err());
    /// ```
    ///
    /// # Errors
    /// [`PermissionRuleError::Invalid`] saying what is wrong: an empty rule, a tool name
    /// that is not one, a pattern on a tool that takes none, a malformed pattern.
    pub fn parse(
        text: &str,
        kind_of: &dyn Fn(&str) -> ArgumentKind,
    ) -> Result<Self, PermissionRuleError> {
        let text = text.trim();
        let invalid = |reason: String| PermissionRuleError::Invalid {
            rule: text.to_owned(),
            reason,
        };
        let (tool, pattern) = split(text).map_err(invalid)?;
        check_tool_name(tool).map_err(invalid)?;
        let pattern = match pattern {
            None => None,
            Some(pattern) => Some(parse_pattern(tool, kind_of(tool), pattern).map_err(invalid)?),
        };
        Ok(Self {
            text: text.to_owned(),
            tool: tool.to_owned(),
            pattern,
        })
    }

    /// The rule `<tool>(<words>)` of a tool whose rules take command words, matching
    /// exactly `words`, quoted where needed (for mapping an exact command onto a rule).
    ///
    /// ```
    /// use smallebot_core::rules::permission::PermissionRule;
    /// let rule = PermissionRule::exact_command("ExecuteCommand", &["grep", "a b", "f"]).unwrap();
    /// assert_eq!(rule.text(), "ExecuteCommand(grep 'a b' f)");
    /// ```
    ///
    /// # Errors
    /// [`PermissionRuleError::Invalid`] for no words, a word with a NUL character or a
    /// tool name that is not one.
    pub fn exact_command(tool: &str, words: &[&str]) -> Result<Self, PermissionRuleError> {
        let quoted: Vec<String> = words.iter().map(|word| quoted(word)).collect();
        let text = format!("{tool}({})", quoted.join(" "));
        let invalid = |reason: String| PermissionRuleError::Invalid {
            rule: text.clone(),
            reason,
        };
        if let Some(word) = words.iter().find(|word| word.contains('\0')) {
            return Err(invalid(format!(
                "the word {word:?} contains a NUL character"
            )));
        }
        check_tool_name(tool).map_err(invalid)?;
        let pattern = command_pattern(&quoted.join(" ")).map_err(invalid)?;
        Ok(Self {
            text,
            tool: tool.to_owned(),
            pattern: Some(pattern),
        })
    }

    /// The rule as written (trimmed).
    #[must_use]
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The tool name as written (a glob for MCP tools).
    #[must_use]
    pub fn tool(&self) -> &str {
        &self.tool
    }

    /// Whether the rule names MCP tools (`mcp__…`).
    #[must_use]
    pub fn is_mcp(&self) -> bool {
        self.tool.starts_with(MCP_PREFIX)
    }

    /// Whether the rule has no pattern, so it matches every call of its tools.
    #[must_use]
    pub fn is_bare(&self) -> bool {
        self.pattern.is_none()
    }

    /// Whether the rule is about calls of `tool` (`mcp__server` names all the server's
    /// tools).
    pub(super) fn matches_tool(&self, tool: &str) -> bool {
        if !self.is_mcp() {
            return self.tool == tool;
        }
        let server_only = !self.tool[MCP_PREFIX.len()..].contains("__");
        if server_only {
            return tool
                .strip_prefix(self.tool.as_str())
                .is_some_and(|rest| rest.starts_with("__"));
        }
        name_match(&self.tool, tool)
    }

    /// Whether the pattern matches a command's words (a bare rule matches anything):
    /// every word the rule names must be literal and equal.
    pub(super) fn matches_words(&self, words: &[&ShellWord]) -> bool {
        let same = |rule: &[String], words: &[&ShellWord]| {
            rule.iter()
                .zip(words)
                .all(|(want, word)| word.literal && word.text == *want)
        };
        match &self.pattern {
            None => true,
            Some(Pattern::Exact(rule)) => rule.len() == words.len() && same(rule, words),
            Some(Pattern::Prefix(rule)) => rule.len() <= words.len() && same(rule, words),
            Some(_) => false,
        }
    }

    /// Whether the pattern matches a workspace-relative path.
    pub(super) fn matches_path(&self, path: &str) -> bool {
        match &self.pattern {
            None => true,
            Some(Pattern::Path(glob)) => glob.matches(path),
            Some(_) => false,
        }
    }

    /// Whether the pattern may match the workspace directory `dir` or a path under it.
    pub(super) fn may_match_within(&self, dir: &str) -> bool {
        match &self.pattern {
            None => true,
            Some(Pattern::Path(glob)) => glob.may_match_within(dir),
            Some(_) => false,
        }
    }

    /// Whether the pattern matches the workspace directory `dir` and every path under it.
    pub(super) fn covers(&self, dir: &str) -> bool {
        match &self.pattern {
            None => true,
            Some(Pattern::Path(glob)) => glob.covers(dir),
            Some(_) => false,
        }
    }

    /// Whether the pattern matches an MCP resource, `server:uri`.
    pub(super) fn matches_resource(&self, resource: &str) -> bool {
        match &self.pattern {
            None => true,
            Some(Pattern::Resource(glob)) => name_match(glob, resource),
            Some(_) => false,
        }
    }

    /// Whether the pattern matches an agent's name.
    pub(super) fn matches_agent(&self, agent: &str) -> bool {
        match &self.pattern {
            None => true,
            Some(Pattern::Agent(name)) => name == agent,
            Some(_) => false,
        }
    }
}

impl fmt::Display for PermissionRule {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

/// `word` as one shell word: as it is when that is safe, else in single quotes.
fn quoted(word: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || "_@%+=:,./-".contains(c);
    if !word.is_empty() && word.chars().all(safe) {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', "'\\''"))
    }
}

/// `Tool` or `Tool(pattern)` split into the tool and the pattern.
fn split(text: &str) -> Result<(&str, Option<&str>), String> {
    if text.is_empty() {
        return Err(
            "the rule is empty; write a tool name such as `ReadFile` or \
             `ExecuteCommand(git status)`"
                .to_owned(),
        );
    }
    let Some(open) = text.find('(') else {
        if text.contains(')') {
            return Err("`)` without `(`; write `Tool(pattern)`".to_owned());
        }
        return Ok((text, None));
    };
    let Some(inner) = text[open + 1..].strip_suffix(')') else {
        return Err("the pattern is not closed; write `Tool(pattern)` with `)` last".to_owned());
    };
    Ok((text[..open].trim_end(), Some(inner)))
}

/// Checks a rule's tool name: a name of letters, digits and `_`, or `mcp__<server>…`
/// with `*` and `?` allowed.
fn check_tool_name(tool: &str) -> Result<(), String> {
    if tool.is_empty() {
        return Err("the tool name is missing before `(`".to_owned());
    }
    let is_name_char = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '-' || c == '.';
    if let Some(rest) = tool.strip_prefix(MCP_PREFIX) {
        if rest.is_empty() || rest.starts_with("__") {
            return Err(format!(
                "`{tool}` names no MCP server; write `mcp__<server>` or `mcp__<server>__<tool>`"
            ));
        }
        if let Some(c) = rest
            .chars()
            .find(|&c| !is_name_char(c) && c != '*' && c != '?')
        {
            return Err(format!(
                "`{tool}` contains `{c}`, which no MCP tool name has"
            ));
        }
        return Ok(());
    }
    if tool.contains(['*', '?']) {
        return Err(format!(
            "`{tool}` is a glob; only MCP tool names (`mcp__<server>__*`) may have `*` or `?`"
        ));
    }
    let valid = tool.chars().next().is_some_and(|c| c.is_ascii_alphabetic())
        && tool.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!(
            "`{tool}` is not a tool name; tool names are letters, digits and `_`, as in `ReadFile`"
        ));
    }
    Ok(())
}

/// Parses the pattern of a rule for `tool`.
fn parse_pattern(tool: &str, kind: ArgumentKind, pattern: &str) -> Result<Pattern, String> {
    match kind {
        _ if tool.starts_with(MCP_PREFIX) => Err(format!(
            "MCP tool rules take no pattern; name the tools instead, as in `{tool}` or \
             `mcp__<server>__read_*`"
        )),
        ArgumentKind::None => Err(format!(
            "`{tool}` takes no pattern; write `{tool}` alone for all its calls"
        )),
        ArgumentKind::Command => command_pattern(pattern),
        ArgumentKind::Path => PathGlob::parse(pattern).map(Pattern::Path),
        ArgumentKind::Resource => resource_pattern(pattern),
        ArgumentKind::Agent => {
            let name = pattern.trim();
            if name.is_empty() {
                return Err(
                    "the agent name is empty; write the tool's name alone for every agent"
                        .to_owned(),
                );
            }
            match name_problem(name, None) {
                None => Ok(Pattern::Agent(name.to_owned())),
                Some(problem) => Err(format!("the agent name is not valid: {problem}")),
            }
        }
    }
}

/// `server:uri-glob`, the server named literally.
fn resource_pattern(pattern: &str) -> Result<Pattern, String> {
    let pattern = pattern.trim();
    match pattern.split_once(':') {
        Some((server, uri))
            if !server.is_empty() && !uri.is_empty() && !server.contains(['*', '?']) =>
        {
            Ok(Pattern::Resource(pattern.to_owned()))
        }
        _ => Err(format!(
            "`{pattern}` is not `server:uri`; write the MCP server's name, `:`, and the \
             resource's URI (a glob: `*` any characters), as in `docs:note://*`"
        )),
    }
}

/// `git status` (exact words) or `cargo test:*` (a prefix of words).
fn command_pattern(pattern: &str) -> Result<Pattern, String> {
    let (text, prefix) = match pattern.trim_end().strip_suffix(":*") {
        Some(text) => (text, true),
        None => (pattern, false),
    };
    if text.trim().is_empty() {
        return Err(
            "the command pattern is empty; write the tool's name alone for every command"
                .to_owned(),
        );
    }
    let words = one_command_words(text).map_err(|error| error.to_string())?;
    if let Some(word) = words.iter().find(|word| !word.literal) {
        return Err(format!(
            "`{}` depends on an expansion or is a glob; rules match literal words only \
             (quote it, or end the pattern with `:*` to allow any words after a prefix)",
            word.text
        ));
    }
    let words = words.into_iter().map(|word| word.text).collect();
    Ok(if prefix {
        Pattern::Prefix(words)
    } else {
        Pattern::Exact(words)
    })
}
