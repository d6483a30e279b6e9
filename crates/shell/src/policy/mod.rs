//! The shell command policy: a blacklist matched on normalized command words, and a
//! whitelist of exact commands that skip confirmation.
//!
//! # How a command is checked
//!
//! The command line is parsed like `sh` would, by the parser it shares with
//! written-file detection ([the crate](crate)): quotes and escapes are removed, and
//! it is split into simple commands at `;`, `&&`, `||`, `|`, `&`, newlines, `( … )` and
//! `{ …; }`. Each simple command is then:
//!
//! 1. expanded as far as possible without running anything: brace expansion
//!    (`{rm,-rf,/}`), variables assigned earlier in the line (`X=rm; $X -rf /`),
//!    `$HOME` as `~`, `$IFS` as a space;
//! 2. stripped of leading `NAME=value` assignments and unwrapped level by level
//!    through wrappers (`env`, `sudo`, `doas`, `nice`, `nohup`, `time`, `command`,
//!    `exec`, `timeout`, `stdbuf`, `xargs`, `busybox`, …; written-file detection
//!    unwraps the same list); every level is checked, so `sudo ls` matches the rule
//!    `sudo` and `sudo rm -rf /` also matches `rm -r /`;
//! 3. normalized: the program's basename, lowercased (`/bin/rm`, `"rm"`, `\rm` → `rm`),
//!    the set of short flags (`-rf`, `-fr`, `-r -f`, and for `rm` `-R`, `--recursive`,
//!    `--force`), long flags, and the other arguments with paths normalized lexically
//!    (`//` → `/`, `/tmp/..` → `/`, `/*` and `~/*` → the directory itself). After a
//!    `cd` in the same line, relative arguments are also resolved against it, so
//!    `cd / && rm -rf *` is `rm -rf /`.
//!
//! Scripts inside the command are checked the same way: `sh`/`bash`/… `-c '…'`,
//! `eval`, `su -c`, `watch`, `env -S`, `find -exec`, `$(…)`, backticks, `<(…)`, and text
//! known to reach a shell's standard input (a here-document, a here-string, or piped
//! `echo`/`printf` output). Quoted text given to other programs is data: `echo "rm -rf /"`
//! passes.
//!
//! # Rule grammar
//!
//! A rule is written like a command and parsed the same way.
//!
//! - **Command rule** (`rm -r /`, `sudo`, `init 0`, `dd of=/dev/sd*`): matches a command
//!   (at any wrapper level) with the same program — a rule program containing `*` is a
//!   glob (`mkfs*` matches `mkfs.ext4`) — whose flags include the rule's flags, and whose
//!   arguments include each rule argument (each matched by a different argument; a rule
//!   argument containing `*` is a glob whose `*` also matches `/`). A glob in the
//!   command (`/???/r?`, `rm -rf .*`) matches a rule word it could expand to.
//! - **Redirection rule** (`> /dev/sd*`): a rule without a program matches any command
//!   that redirects output (`>`, `>>`, `&>`, `>&`, `<>`) to a matching target.
//! - **Pipeline rule** (`curl | sh`): matches a pipeline whose stages match the rule's
//!   stages in order (other stages may come between: `curl x | tee log | sh`).
//!   `sh -c "$(curl …)"`, `eval "$(curl …)"` and `bash <(curl …)` count as pipelines.
//!   After the first stage, an interpreter other than a shell (`python3`, `perl`,
//!   `node`, …) matches only when it runs its input as a program — not with `-c`, `-m`,
//!   `-e`, `-p`, `-r` or a script operand — so `curl … | python3 -m json.tool` passes.
//! - **Fork bomb** (`:(){ :|:& };:`): a rule that defines a function calling itself in
//!   a pipe or in the background matches *any* such function, whatever its name; the
//!   definition alone is refused.
//!
//! A command that cannot be parsed (an unterminated quote) is refused, and so is one
//! whose scripts nest more than 16 levels deep.
//!
//! # Limits
//!
//! A blacklist is a safety net, not a sandbox: it cannot see what a script file, a
//! program computed at run time (`$(echo rm) -rf /`) or an interpreter such as
//! `python3 -c` will do. Confirmation and workspace confinement are the other layers.
//!
//! # Whitelist
//!
//! Whitelisted commands skip confirmation. They match exactly, after trimming and
//! collapsing runs of whitespace — never as prefixes: a whitelisted `ls` does not cover
//! `ls -la` or `ls && rm -rf x`. The blacklist always applies first.

mod checker;
mod expand;
mod glob;
mod invocation;
mod pattern;

use std::fmt;

use checker::Checker;
use pattern::Rule;

/// The blacklist used when `terminal.json` has no `commandBlacklist` key.
pub const DEFAULT_COMMAND_BLACKLIST: &[&str] = &[
    // Deleting the root, the home directory, the workspace's parent, system directories
    // (`/*`, `~/*` and `../*` count as the directory itself).
    "rm -r /",
    "rm -r ~",
    "rm -r ..",
    "rm -r /bin",
    "rm -r /boot",
    "rm -r /dev",
    "rm -r /etc",
    "rm -r /home",
    "rm -r /lib",
    "rm -r /lib64",
    "rm -r /opt",
    "rm -r /root",
    "rm -r /sbin",
    "rm -r /srv",
    "rm -r /usr",
    "rm -r /var",
    // Acting as another user.
    "sudo",
    "su",
    "doas",
    "pkexec",
    // Formatting or overwriting disks.
    "mkfs*",
    "mke2fs",
    "wipefs",
    "format",
    "diskpart",
    "dd of=/dev/sd*",
    "dd of=/dev/hd*",
    "dd of=/dev/vd*",
    "dd of=/dev/xvd*",
    "dd of=/dev/nvme*",
    "dd of=/dev/mmcblk*",
    "> /dev/sd*",
    "> /dev/hd*",
    "> /dev/vd*",
    "> /dev/xvd*",
    "> /dev/nvme*",
    "> /dev/mmcblk*",
    // Stopping the machine.
    "shutdown",
    "reboot",
    "halt",
    "poweroff",
    "init 0",
    "init 6",
    "telinit 0",
    "telinit 6",
    "systemctl poweroff",
    "systemctl reboot",
    "systemctl halt",
    "kill -9 -1",
    // Opening up or giving away the whole file system.
    "chmod -R * /",
    "chown -R * /",
    "chgrp -R * /",
    // A fork bomb (any function calling itself in a pipe or in the background).
    ":(){ :|:& };:",
    // Running a downloaded script.
    "curl | sh",
    "curl | bash",
    "curl | zsh",
    "curl | dash",
    "curl | ksh",
    "curl | python*",
    "curl | perl",
    "curl | ruby",
    "curl | node",
    "wget | sh",
    "wget | bash",
    "wget | zsh",
    "wget | dash",
    "wget | ksh",
    "wget | python*",
    "wget | perl",
    "wget | ruby",
    "wget | node",
];

/// [`DEFAULT_COMMAND_BLACKLIST`] as owned strings, e.g. for a configuration default.
#[must_use]
pub fn default_blacklist() -> Vec<String> {
    DEFAULT_COMMAND_BLACKLIST
        .iter()
        .map(|rule| (*rule).to_owned())
        .collect()
}

/// A blacklist or whitelist entry that cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PolicyError {
    /// A blacklist rule does not parse as a command, a pipeline or a fork bomb.
    #[error("blacklist rule `{rule}` is invalid: {reason}; fix or remove it in terminal.json")]
    InvalidRule {
        /// The rule as configured.
        rule: String,
        /// Why it is invalid.
        reason: String,
    },
}

/// The outcome of checking a command.
#[derive(Debug, Clone, PartialEq, Eq)]
// Not `#[non_exhaustive]`: every caller must decide what a new verdict means; a wildcard could run
// a command the policy meant to stop.
pub enum CommandVerdict {
    /// The command must not run.
    Denied {
        /// The blacklist rule that matched, as configured (or a parenthesized reason
        /// such as `(the command must be valid shell syntax)`).
        rule: String,
        /// The (normalized) command that matched, or what could not be checked.
        matched: String,
    },
    /// No rule matched.
    Allowed {
        /// Whether the command is on the whitelist, so it needs no confirmation.
        whitelisted: bool,
    },
}

impl CommandVerdict {
    /// Whether the command may run (possibly after confirmation).
    #[must_use]
    pub fn is_allowed(&self) -> bool {
        matches!(self, Self::Allowed { .. })
    }
}

impl fmt::Display for CommandVerdict {
    /// A one-line explanation, suitable for the tool result shown to the model.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Denied { rule, matched } if rule.starts_with('(') => {
                write!(f, "command refused: {matched}")
            }
            Self::Denied { rule, matched } => write!(
                f,
                "command refused: `{matched}` matches the blacklist rule `{rule}`; \
                 do not retry it in another form, ask the user instead"
            ),
            Self::Allowed { whitelisted: true } => f.write_str("allowed (whitelisted)"),
            Self::Allowed { whitelisted: false } => f.write_str("allowed"),
        }
    }
}

/// A parsed blacklist and whitelist, ready to check commands.
#[derive(Debug, Clone)]
pub struct CommandPolicy {
    rules: Vec<Rule>,
    whitelist: Vec<String>,
}

impl CommandPolicy {
    /// Builds a policy from blacklist rules and whitelisted commands. Blank whitelist
    /// entries are ignored. An empty blacklist is taken as given: applying
    /// [`DEFAULT_COMMAND_BLACKLIST`] when the key is absent is the caller's job.
    ///
    /// # Errors
    /// [`PolicyError::InvalidRule`] naming the first rule that does not parse.
    pub fn new(blacklist: &[String], whitelist: &[String]) -> Result<Self, PolicyError> {
        let rules = blacklist
            .iter()
            .map(|rule| {
                Rule::parse(rule).map_err(|reason| PolicyError::InvalidRule {
                    rule: rule.clone(),
                    reason,
                })
            })
            .collect::<Result<Vec<_>, _>>()?;
        let whitelist = whitelist
            .iter()
            .map(|command| collapse_whitespace(command))
            .filter(|command| !command.is_empty())
            .collect();
        Ok(Self { rules, whitelist })
    }

    /// The policy with [`DEFAULT_COMMAND_BLACKLIST`] and an empty whitelist.
    #[must_use]
    pub fn with_defaults() -> Self {
        let rules = DEFAULT_COMMAND_BLACKLIST
            .iter()
            .filter_map(|rule| Rule::parse(rule).ok())
            .collect();
        Self {
            rules,
            whitelist: Vec::new(),
        }
    }

    /// The number of blacklist rules.
    #[must_use]
    pub fn rule_count(&self) -> usize {
        self.rules.len()
    }

    /// Checks a command line: the blacklist first, then the whitelist.
    ///
    /// ```
    /// use smallebot_shell::{CommandPolicy, CommandVerdict};
    /// let policy = CommandPolicy::with_defaults();
    /// assert!(policy.check("cargo test").is_allowed());
    /// assert!(matches!(
    ///     policy.check("true && /bin/rm -fr //"),
    ///     CommandVerdict::Denied { rule, .. } if rule == "rm -r /"
    /// ));
    /// ```
    #[must_use]
    pub fn check(&self, command: &str) -> CommandVerdict {
        let checker = Checker { rules: &self.rules };
        match checker.check(command) {
            Err(violation) => CommandVerdict::Denied {
                rule: violation.rule,
                matched: violation.matched,
            },
            Ok(()) => CommandVerdict::Allowed {
                whitelisted: self.whitelist.contains(&collapse_whitespace(command)),
            },
        }
    }
}

/// Trims and collapses runs of whitespace to one space.
fn collapse_whitespace(command: &str) -> String {
    command.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod robustness_tests;
#[cfg(test)]
mod tests;
