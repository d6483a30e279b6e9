//! `Delegate`'s name, for the tool itself and for the permission rules' list of tools
//! ([`permission_names`](super::permission_names)), which cannot import the tool: it
//! runs sub-agents, whose history builder reads agent.json, which checks the rules.

/// `Delegate`'s name.
pub(crate) const DELEGATE: &str = "Delegate";
