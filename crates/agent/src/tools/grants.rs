//! What the person allowed beyond one call: "always in this conversation" (kept per
//! conversation) and "always" (allow rules for this user), both in memory for now
//! ([`Grants`]).

use std::collections::HashMap;
use std::sync::{Mutex, PoisonError};

use smallebot_core::ids::ConversationId;
use smallebot_core::rules::permission::{
    ArgumentKind, CallArgument, CallSubject, DefaultMode, PermissionRule, PermissionRules, Verdict,
    decide, exact_command_rules,
};

use super::permission_argument;

/// How far a grant reaches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scope {
    /// The rest of one conversation.
    Conversation(ConversationId),
    /// From now on, every conversation of this user.
    Always,
}

/// The grants the person gave, as allow rules; they only ever spare a question: a
/// deny rule still refuses.
pub(crate) struct Grants {
    always: Mutex<PermissionRules>,
    conversations: Mutex<HashMap<ConversationId, PermissionRules>>,
}

impl Default for Grants {
    fn default() -> Self {
        Self {
            always: Mutex::new(asking()),
            conversations: Mutex::default(),
        }
    }
}

impl Grants {
    /// Whether a grant of `conversation` (or one for always) allows `subject`.
    pub(crate) fn allow(
        &self,
        subject: &CallSubject,
        conversation: Option<ConversationId>,
    ) -> bool {
        let allows = |rules: &PermissionRules| decide(rules, subject).verdict == Verdict::Allow;
        if allows(&self.always.lock().unwrap_or_else(PoisonError::into_inner)) {
            return true;
        }
        conversation.is_some_and(|id| {
            self.conversations
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .get(&id)
                .is_some_and(allows)
        })
    }

    /// Keeps allow rules for calls like `subject` for `scope`; `false` when no rule
    /// can say what the call is (a command with a word only known when it runs).
    pub(crate) fn grant(&self, subject: &CallSubject, scope: Scope) -> bool {
        let Some(rules) = grant_rules(subject) else {
            return false;
        };
        let add = |list: &mut PermissionRules| {
            for rule in rules {
                if !list.allow.contains(&rule) {
                    list.allow.push(rule);
                }
            }
        };
        match scope {
            Scope::Always => add(&mut self.always.lock().unwrap_or_else(PoisonError::into_inner)),
            Scope::Conversation(id) => add(self
                .conversations
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .entry(id)
                .or_insert_with(asking)),
        }
        true
    }
}

/// No rules, the default `ask`: only what is granted is allowed.
fn asking() -> PermissionRules {
    PermissionRules {
        default_mode: DefaultMode::Ask,
        ..PermissionRules::default()
    }
}

/// The allow rules a grant for `subject` adds: each of a command's simple commands
/// exactly, the exact workspace path (a directory read recursively with all under it),
/// the agent, or the tool; `None` when none can
/// (a command with a word only known when it runs; the workspace root, which a rule
/// without a path would widen to every path).
fn grant_rules(subject: &CallSubject) -> Option<Vec<PermissionRule>> {
    let tool = subject.tool.as_str();
    let text = match &subject.argument {
        CallArgument::Commands(commands) => return exact_command_rules(tool, commands).ok(),
        CallArgument::UnreadableCommand(_) => return None,
        CallArgument::Path(path) if path.is_empty() => return None,
        CallArgument::Path(path) | CallArgument::Agent(path) => format!("{tool}({path})"),
        // What the call reached: the directory and everything under it.
        CallArgument::Tree(dir) if dir.is_empty() => format!("{tool}(**)"),
        CallArgument::Tree(dir) => format!("{tool}({dir}/**)"),
        CallArgument::None => tool.to_owned(),
    };
    let kind_of = |name: &str| match &subject.argument {
        CallArgument::None => ArgumentKind::None,
        _ => permission_argument(name),
    };
    PermissionRule::parse(&text, &kind_of)
        .ok()
        .map(|rule| vec![rule])
}
