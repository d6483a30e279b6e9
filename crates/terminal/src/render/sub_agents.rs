//! Sub-agents' conversations on the command line: left out of `conversations list`
//! unless asked for, marked when listed, and listed under their parent by `show`.

use smallebot_core::entities::Conversation;

use super::timeline::conversation_line;

/// The lines of `conversations list`: every conversation with `all`, else only those
/// that are no sub-agent's; a sub-agent's line ends with
/// `  [sub-agent NAME of PARENT-ID]`.
#[must_use]
pub fn list_lines(conversations: &[Conversation], all: bool) -> Vec<String> {
    conversations
        .iter()
        .filter(|c| all || c.parent.is_none())
        .map(|c| match &c.parent {
            None => conversation_line(c),
            Some(link) => format!(
                "{}  [sub-agent {} of {}]",
                conversation_line(c),
                link.agent_name,
                link.parent_conversation_id
            ),
        })
        .collect()
}

/// The `Sub-agents:` block `conversations show` prints after `parent`'s timeline: one
/// line per conversation of `conversations` that `parent` delegated to, oldest first
/// (`<id>  <agent>  call <call id>  <title>`); empty when it delegated nothing.
#[must_use]
pub fn sub_agent_block(parent: &Conversation, conversations: &[Conversation]) -> String {
    let mut children: Vec<&Conversation> = conversations
        .iter()
        .filter(|c| {
            c.parent
                .as_ref()
                .is_some_and(|l| l.parent_conversation_id == parent.id)
        })
        .collect();
    if children.is_empty() {
        return String::new();
    }
    children.sort_by_key(|c| (c.created_at, c.id));
    let mut out = String::from("Sub-agents:\n");
    for child in children {
        if let Some(link) = &child.parent {
            out.push_str(&format!(
                "  {}  {}  call {}  {}\n",
                child.id, link.agent_name, link.parent_tool_call_id, child.title
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use smallebot_core::entities::{Conversation, SubAgentLink};

    use super::{list_lines, sub_agent_block};

    #[test]
    fn sub_agents_are_listed_only_when_asked_and_under_their_parent() {
        let at = Utc
            .with_ymd_and_hms(2026, 1, 2, 3, 4, 5)
            .single()
            .unwrap_or_default();
        let parent = Conversation::new("ada", "Plan", at);
        let other = Conversation::new("ada", "Other", at);
        let link = |call: &str, agent: &str| SubAgentLink {
            parent_conversation_id: parent.id,
            parent_tool_call_id: call.into(),
            agent_name: agent.into(),
        };
        let first = Conversation::new("ada", "lister: list", at).with_parent(link("d1", "lister"));
        let second = Conversation::new("ada", "reader: read", at).with_parent(link("d2", "reader"));
        let all = [parent.clone(), other.clone(), first.clone(), second.clone()];
        let shown = list_lines(&all, false);
        assert_eq!(shown.len(), 2);
        assert!(
            shown[0].ends_with("Plan") && shown[1].ends_with("Other"),
            "{shown:?}"
        );
        let every = list_lines(&all, true);
        assert_eq!(every.len(), 4);
        assert!(
            every[2].ends_with(&format!(
                "lister: list  [sub-agent lister of {}]",
                parent.id
            )),
            "{}",
            every[2]
        );
        let block = sub_agent_block(&parent, &all);
        assert_eq!(
            block,
            format!(
                "Sub-agents:\n  {}  lister  call d1  lister: list\n  {}  reader  call d2  reader: read\n",
                first.id, second.id
            )
        );
        assert_eq!(sub_agent_block(&other, &all), "");
    }
}
