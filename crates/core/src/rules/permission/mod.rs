//! Permission rules: which tool calls run, are asked about, or never run.
//!
//! A rule names a tool and, optionally, a pattern on the call's argument; which kind
//! of pattern a tool takes ([`ArgumentKind`]) is the agent's to say, since it owns the
//! tools:
//!
//! | Rule | Matches |
//! | --- | --- |
//! | `ReadFile`, `ExecuteCommand` | every call of the tool |
//! | `ExecuteCommand(git status)` | a command of exactly these words |
//! | `ExecuteCommand(cargo test:*)` | a command whose words start with these |
//! | `WriteFile(docs/**)` (and the other workspace file tools) | a glob on the workspace-relative path: `**` any number of path parts, `*` and `?` within one part |
//! | `Delegate(researcher)` | a call that runs that agent |
//! | `ReadMcpResource(docs:note://*)` | a read of an MCP resource, a glob on `server:uri` |
//! | `mcp__files`, `mcp__files__*`, `mcp__files__read_?` | the MCP server's tools, by name (glob) |
//!
//! Command words are the shell analyzer's ([`smallebot_shell::command_words`]), never
//! raw text: `git status; rm -rf x` is two commands, `sudo bash -c 'git status'` runs
//! `git status`, `/usr/bin/curl` is `curl`, quotes are removed. A rule's words must be
//! literal, and a command word that depends on an expansion (`$X`, `*.rs`, what `xargs`
//! appends) never matches one.
//!
//! # The decision
//!
//! [`decide`]: a matching `deny` rule wins over an `ask` rule, an `ask` rule over an
//! `allow` rule. For a command line:
//!
//! - a deny (or ask) rule matches when it matches any of its simple commands: its words,
//!   the words with the `NAME=value` assignments set for it, or any level that runs it
//!   (`ExecuteCommand(sudo:*)` matches `sudo git status`);
//! - it is allowed only when *every* simple command is allowed by an allow rule,
//!   matched on the command's words with its assignments first (`FOO=1 cargo test` is
//!   not allowed by `ExecuteCommand(cargo test:*)`: variables can change what a program
//!   runs, as `PAGER` or `LD_PRELOAD` do), and never when it redirects its output to a
//!   file (`git status > notes.txt`; `2>&1` and `/dev/null` do not count), which no
//!   rule's words can say. Wrappers that only run it (`sudo`, `nice`,
//!   `timeout`, `sh -c`) do not count; the command blacklist, checked before the rules,
//!   refuses `sudo` by default.
//!
//! With no rule matching, the tool's default applies
//! ([`PermissionRules::tool_defaults`], else [`PermissionRules::default_mode`]). A
//! command line that cannot be read is never allowed by a default: it is asked about
//! unless a rule without a pattern decides.
//!
//! ```
//! use smallebot_core::rules::permission::{
//!     ArgumentKind, CallSubject, DefaultMode, PermissionRule, PermissionRules, Verdict, decide,
//! };
//! let commands = |_: &str| ArgumentKind::Command;
//! let rules = PermissionRules {
//!     allow: vec![PermissionRule::parse("ExecuteCommand(git status)", &commands).unwrap()],
//!     deny: vec![PermissionRule::parse("ExecuteCommand(curl:*)", &commands).unwrap()],
//!     default_mode: DefaultMode::Ask,
//!     ..PermissionRules::default()
//! };
//! let verdict = |line: &str| decide(&rules, &CallSubject::command("ExecuteCommand", line)).verdict;
//! assert_eq!(verdict("git status"), Verdict::Allow);
//! assert_eq!(verdict("git status; rm x"), Verdict::Ask);
//! assert_eq!(verdict("true && /usr/bin/curl x"), Verdict::Deny);
//! ```

mod decide;
mod exact;
mod glob;
mod rule;

pub use decide::{
    CallArgument, CallSubject, Decision, DefaultMode, PermissionRules, Verdict, decide,
};
pub use exact::exact_command_rules;
pub use rule::{ArgumentKind, MCP_PREFIX, PermissionRule, PermissionRuleError};

#[cfg(test)]
mod decide_kinds_tests;
#[cfg(test)]
mod decide_tests;
#[cfg(test)]
mod rule_tests;
