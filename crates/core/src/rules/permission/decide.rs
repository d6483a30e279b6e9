//! What a tool call is ([`CallSubject`]) and what the rules say about it ([`decide`]).

use std::collections::BTreeMap;

use smallebot_shell::{CommandWords, ShellWord, command_words};

use super::rule::PermissionRule;

/// What happens to a call when no rule matches it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum DefaultMode {
    /// Ask the person (`"ask"`).
    Ask,
    /// Run it (`"allow"`, the default: tools run unless a rule says otherwise, as
    /// before there were rules).
    #[default]
    Allow,
}

/// The rules of a home (or a user), and what applies when none matches.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PermissionRules {
    /// Calls these match run without asking (unless an ask or deny rule matches too).
    pub allow: Vec<PermissionRule>,
    /// Calls these match are asked about (unless a deny rule matches too).
    pub ask: Vec<PermissionRule>,
    /// Calls these match never run.
    pub deny: Vec<PermissionRule>,
    /// What applies to a call no rule matches.
    pub default_mode: DefaultMode,
    /// Per tool name, a default of its own instead of [`Self::default_mode`]
    /// (`requireCommandConfirmation` makes `ExecuteCommand`'s `Ask`).
    pub tool_defaults: BTreeMap<String, DefaultMode>,
}

/// What the call's rules are matched on, besides its tool.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CallArgument {
    /// Nothing: only rules without a pattern apply.
    None,
    /// The simple commands of a command line (see [`smallebot_shell::command_words`]).
    Commands(Vec<CommandWords>),
    /// A command line that cannot be read (unparsable, nested too deep): only rules
    /// without a pattern apply, and it is never allowed by default.
    UnreadableCommand(String),
    /// A workspace-relative path, normalized (`/`-separated, `""` for the root).
    Path(String),
    /// A workspace directory and everything under it, as a recursive read reaches it
    /// (normalized as [`Self::Path`]): a deny or ask rule applies when its pattern may
    /// match anything there, an allow rule only when it matches all of it.
    Tree(String),
    /// The name of the agent a `Delegate` call runs.
    Agent(String),
    /// The MCP resource a `ReadMcpResource` call reads, as `server:uri`.
    Resource(String),
}

/// A tool call as the rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallSubject {
    /// The tool's name; an MCP tool as `mcp__<server>__<tool>`.
    pub tool: String,
    /// What its rules' patterns are matched on.
    pub argument: CallArgument,
}

impl CallSubject {
    /// A call of `tool` seen without an argument.
    #[must_use]
    pub fn tool(tool: &str) -> Self {
        Self {
            tool: tool.to_owned(),
            argument: CallArgument::None,
        }
    }

    /// A call of `tool` that runs the command line `line`.
    #[must_use]
    pub fn command(tool: &str, line: &str) -> Self {
        let argument = match command_words(line) {
            Ok(commands) => CallArgument::Commands(commands),
            Err(error) => CallArgument::UnreadableCommand(error.to_string()),
        };
        Self {
            tool: tool.to_owned(),
            argument,
        }
    }

    /// A call of `tool` on the workspace-relative, normalized `path`.
    #[must_use]
    pub fn path(tool: &str, path: &str) -> Self {
        Self {
            tool: tool.to_owned(),
            argument: CallArgument::Path(path.to_owned()),
        }
    }

    /// A call of `tool` reaching the workspace directory `dir` and all under it.
    #[must_use]
    pub fn tree(tool: &str, dir: &str) -> Self {
        Self {
            tool: tool.to_owned(),
            argument: CallArgument::Tree(dir.to_owned()),
        }
    }

    /// A call of `tool` that reads the resource `uri` of the MCP server `server`.
    #[must_use]
    pub fn resource(tool: &str, server: &str, uri: &str) -> Self {
        Self {
            tool: tool.to_owned(),
            argument: CallArgument::Resource(format!("{server}:{uri}")),
        }
    }

    /// A call of `tool` that runs the agent `agent`.
    #[must_use]
    pub fn agent(tool: &str, agent: &str) -> Self {
        Self {
            tool: tool.to_owned(),
            argument: CallArgument::Agent(agent.to_owned()),
        }
    }
}

/// What the rules say about a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// Run it.
    Allow,
    /// Ask the person first.
    Ask,
    /// Never run it.
    Deny,
}

/// A [`Verdict`] and the rule that gave it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Decision {
    /// What happens to the call.
    pub verdict: Verdict,
    /// The rule that gave the verdict, as written (the allow rules of each command,
    /// joined with `, `, when a command line's commands were allowed by several);
    /// `None` when no rule matched and the default applied.
    pub rule: Option<String>,
}

/// What `rules` say about `subject`: a matching deny rule wins over an ask rule, an ask
/// rule over an allow rule; a command line is allowed only when each of its simple
/// commands is, and denied (or asked about) when any one is; with no rule matching,
/// the tool's default (see the [module](super) docs).
#[must_use]
pub fn decide(rules: &PermissionRules, subject: &CallSubject) -> Decision {
    let tool = subject.tool.as_str();
    let about = Applicable {
        deny: about_tool(&rules.deny, tool),
        ask: about_tool(&rules.ask, tool),
        allow: about_tool(&rules.allow, tool),
    };
    let mode = rules
        .tool_defaults
        .get(tool)
        .copied()
        .unwrap_or(rules.default_mode);
    let default = || Decision {
        verdict: match mode {
            DefaultMode::Ask => Verdict::Ask,
            DefaultMode::Allow => Verdict::Allow,
        },
        rule: None,
    };
    match &subject.argument {
        CallArgument::None => about
            .single(&PermissionRule::is_bare)
            .unwrap_or_else(default),
        CallArgument::Path(path) => about
            .single(&|rule| rule.matches_path(path))
            .unwrap_or_else(default),
        CallArgument::Tree(dir) => about
            .stops(&|rule| rule.may_match_within(dir))
            .or_else(|| first(&about.allow, &|rule| rule.covers(dir), Verdict::Allow))
            .unwrap_or_else(default),
        CallArgument::Agent(agent) => about
            .single(&|rule| rule.matches_agent(agent))
            .unwrap_or_else(default),
        CallArgument::Resource(resource) => about
            .single(&|rule| rule.matches_resource(resource))
            .unwrap_or_else(default),
        CallArgument::UnreadableCommand(_) => {
            about.single(&PermissionRule::is_bare).unwrap_or(Decision {
                verdict: Verdict::Ask,
                rule: None,
            })
        }
        CallArgument::Commands(commands) => {
            let all_levels: Vec<Vec<Vec<&ShellWord>>> = commands.iter().map(levels).collect();
            let any_level = |rule: &PermissionRule| {
                rule.is_bare()
                    || all_levels
                        .iter()
                        .flatten()
                        .any(|level| rule.matches_words(level))
            };
            about
                .stops(&any_level)
                .or_else(|| first(&about.allow, &PermissionRule::is_bare, Verdict::Allow))
                .or_else(|| {
                    allowed_commands(&about.allow, commands).map(|texts| Decision {
                        verdict: Verdict::Allow,
                        rule: Some(texts.join(", ")),
                    })
                })
                .unwrap_or_else(default)
        }
    }
}

/// The rules about one call's tool.
struct Applicable<'a> {
    deny: Vec<&'a PermissionRule>,
    ask: Vec<&'a PermissionRule>,
    allow: Vec<&'a PermissionRule>,
}

impl Applicable<'_> {
    /// The first deny rule, else the first ask rule, that `matches`.
    fn stops(&self, matches: &dyn Fn(&PermissionRule) -> bool) -> Option<Decision> {
        first(&self.deny, matches, Verdict::Deny)
            .or_else(|| first(&self.ask, matches, Verdict::Ask))
    }

    /// [`Self::stops`], else the first allow rule that `matches`.
    fn single(&self, matches: &dyn Fn(&PermissionRule) -> bool) -> Option<Decision> {
        self.stops(matches)
            .or_else(|| first(&self.allow, matches, Verdict::Allow))
    }
}

/// The rules of `list` about `tool`.
fn about_tool<'a>(list: &'a [PermissionRule], tool: &str) -> Vec<&'a PermissionRule> {
    list.iter().filter(|rule| rule.matches_tool(tool)).collect()
}

/// The decision of the first rule of `rules` that `matches`.
fn first(
    rules: &[&PermissionRule],
    matches: &dyn Fn(&PermissionRule) -> bool,
    verdict: Verdict,
) -> Option<Decision> {
    rules
        .iter()
        .find(|rule| matches(rule))
        .map(|rule| Decision {
            verdict,
            rule: Some(rule.text().to_owned()),
        })
}

/// The allow rules that allow each command (distinct, in order), or `None` when one
/// command is allowed by none or writes its output to a file, or there are no commands.
fn allowed_commands(allow: &[&PermissionRule], commands: &[CommandWords]) -> Option<Vec<String>> {
    if commands.is_empty() {
        return None;
    }
    let mut texts: Vec<String> = Vec::new();
    for command in commands {
        // What a rule's words cannot say: where the output is written.
        if !command.redirects.is_empty() {
            return None;
        }
        let words: Vec<&ShellWord> = command.assignments.iter().chain(&command.words).collect();
        let rule = allow.iter().find(|rule| rule.matches_words(&words))?;
        if !texts.iter().any(|text| text == rule.text()) {
            texts.push(rule.text().to_owned());
        }
    }
    Some(texts)
}

/// The word lists deny and ask rules are matched on: the command with its assignments,
/// without them, and each level that runs it.
fn levels(command: &CommandWords) -> Vec<Vec<&ShellWord>> {
    let mut levels: Vec<Vec<&ShellWord>> = vec![
        command.assignments.iter().chain(&command.words).collect(),
        command.words.iter().collect(),
    ];
    levels.extend(command.wrappers.iter().map(|level| level.iter().collect()));
    levels
}
