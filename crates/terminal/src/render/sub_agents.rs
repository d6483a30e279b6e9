//! Sub-agents' conversations on the command line: left out of `conversations list`
//! unless asked for, marked when listed, and listed under their parent by `show`.

use smallebot_core::entities::{Conversation, SubAgentRun};

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

/// The `Sub-agents:` block `conversations show` prints after a parent's timeline, one
/// line per sub-agent (`<id>  <agent>  call <call id>  <title>  (<status>, N tool
/// call(s))`, its error below it): each sub-agent's
/// conversation (as the store's one query gives them: with their latest turn's status,
/// error and tool calls), in the order they were started; empty when it has none.
#[must_use]
pub fn sub_agent_block(runs: &[SubAgentRun]) -> String {
    if runs.is_empty() {
        return String::new();
    }
    let mut out = String::from("Sub-agents:\n");
    for run in runs {
        let child = &run.conversation;
        let Some(link) = &child.parent else {
            continue;
        };
        let status = match run.latest_status {
            Some(status) => format!("{}, {} tool call(s)", status.as_str(), run.tool_calls),
            None => "not started".to_owned(),
        };
        out.push_str(&format!(
            "  {}  {}  call {}  {}  ({status})\n",
            child.id, link.agent_name, link.parent_tool_call_id, child.title
        ));
        if let Some(error) = &run.latest_error {
            out.push_str(&format!("      error: {error}\n"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use chrono::{TimeZone, Utc};
    use smallebot_core::entities::{Conversation, SubAgentLink, SubAgentRun, TurnStatus};

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
        let runs = [
            SubAgentRun {
                conversation: first.clone(),
                latest_status: Some(TurnStatus::Completed),
                latest_error: None,
                tool_calls: 3,
            },
            SubAgentRun {
                conversation: second.clone(),
                latest_status: Some(TurnStatus::Failed),
                latest_error: Some("the model failed".into()),
                tool_calls: 0,
            },
        ];
        assert_eq!(
            sub_agent_block(&runs),
            format!(
                "Sub-agents:\n  {}  lister  call d1  lister: list  (completed, 3 tool call(s))\n  {}  reader  call d2  reader: read  (failed, 0 tool call(s))\n      error: the model failed\n",
                first.id, second.id
            )
        );
        assert_eq!(sub_agent_block(&[]), "");
    }
}
