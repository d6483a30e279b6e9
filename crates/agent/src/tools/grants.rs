//! What the person allowed beyond one call: "always in this conversation" and "always"
//! (allow rules for this user) — [`Grants`]: stored with the store the gate was given
//! (who, when, scope, rules, the call), so they can be listed and revoked, and read
//! again at each question; in memory without a store or outside a conversation.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};

use smallebot_core::entities::{GrantFilter, GrantScope, NewPermissionGrant};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{RepoResult, Store};
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
/// deny rule still refuses. Those given in a conversation are stored for its user when
/// there is a store; the rest are kept in memory.
#[derive(Default)]
pub(crate) struct Grants {
    memory: MemoryGrants,
    store: Option<Arc<dyn Store>>,
}

impl Grants {
    /// Grants stored in `store` (and read from it at each question).
    pub(crate) fn stored_in(store: Arc<dyn Store>) -> Self {
        Self {
            memory: MemoryGrants::default(),
            store: Some(store),
        }
    }

    /// Whether a live grant of `conversation`'s user — for it, or for always — allows
    /// `subject`. A store that cannot be read allows nothing (the person is asked).
    pub(crate) async fn allow(
        &self,
        subject: &CallSubject,
        conversation: Option<ConversationId>,
    ) -> bool {
        if self.memory.allow(subject, conversation) {
            return true;
        }
        let (Some(store), Some(id)) = (&self.store, conversation) else {
            return false;
        };
        match stored_rules(store.as_ref(), id).await {
            Ok(rules) => decide(&rules, subject).verdict == Verdict::Allow,
            Err(err) => {
                tracing::warn!(%err, "the permission grants could not be read; asking");
                false
            }
        }
    }

    /// Keeps allow rules for calls like `subject` for `scope`, prompted by the call
    /// shown as `call`; `false` when no rule can say what the call is (a command with
    /// a word only known when it runs). Stored for the user of `conversation` when
    /// there is a store and a conversation (kept in memory when storing fails).
    pub(crate) async fn grant(
        &self,
        subject: &CallSubject,
        scope: Scope,
        conversation: Option<ConversationId>,
        call: &str,
    ) -> bool {
        let Some(rules) = grant_rules(subject) else {
            return false;
        };
        if let (Some(store), Some(id)) = (&self.store, conversation) {
            match store_grant(store.as_ref(), id, scope, &rules, call).await {
                Ok(()) => return true,
                Err(err) => {
                    tracing::warn!(%err, "a permission grant was not stored; kept until exit")
                }
            }
        }
        self.memory.grant(rules, scope);
        true
    }
}

/// The allow rules of the live grants of `conversation`'s user that apply in it (rules
/// that no longer parse are left out, with a warning).
async fn stored_rules(
    store: &dyn Store,
    conversation: ConversationId,
) -> RepoResult<PermissionRules> {
    let mut rules = asking();
    let Some(owner) = store.get_conversation(conversation).await? else {
        return Ok(rules);
    };
    let filter = GrantFilter::applying(&owner.user_name, Some(conversation));
    for grant in store.permission_grants(&filter).await? {
        for text in &grant.rules {
            match PermissionRule::parse(text, &permission_argument) {
                Ok(rule) => rules.allow.push(rule),
                Err(err) => {
                    tracing::warn!(%err, grant = grant.id, "a stored grant's rule is ignored")
                }
            }
        }
    }
    Ok(rules)
}

/// Stores a grant of `rules` for `scope` for the user of `conversation`.
async fn store_grant(
    store: &dyn Store,
    conversation: ConversationId,
    scope: Scope,
    rules: &[PermissionRule],
    call: &str,
) -> RepoResult<()> {
    let owner = store
        .get_conversation(conversation)
        .await?
        .ok_or_else(|| smallebot_core::RepositoryError::not_found("conversation", conversation))?;
    let grant = NewPermissionGrant {
        user_name: owner.user_name,
        scope: match scope {
            Scope::Always => GrantScope::Always,
            Scope::Conversation(id) => GrantScope::Conversation(id),
        },
        rules: rules.iter().map(|rule| rule.text().to_owned()).collect(),
        call: call.to_owned(),
        granted_at: chrono::Utc::now(),
    };
    store.add_permission_grant(&grant).await.map(|_| ())
}

/// Grants kept in memory: without a store, or outside a conversation.
struct MemoryGrants {
    always: Mutex<PermissionRules>,
    conversations: Mutex<HashMap<ConversationId, PermissionRules>>,
}

impl Default for MemoryGrants {
    fn default() -> Self {
        Self {
            always: Mutex::new(asking()),
            conversations: Mutex::default(),
        }
    }
}

impl MemoryGrants {
    /// Whether a grant of `conversation` (or one for always) allows `subject`.
    fn allow(&self, subject: &CallSubject, conversation: Option<ConversationId>) -> bool {
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

    /// Keeps `rules` for `scope`.
    fn grant(&self, rules: Vec<PermissionRule>, scope: Scope) {
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
        CallArgument::Path(path) | CallArgument::Agent(path) | CallArgument::Resource(path) => {
            format!("{tool}({path})")
        }
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
