//! The system prompt, assembled from sections.

/// The base instructions every conversation starts with.
pub const BASE_INSTRUCTIONS: &str = "You are SmallEBot, a capable assistant that works on the \
person's machine through tools. Think before acting, call tools when they help, and say \
plainly what you did and what you found. Keep exact paths, names and error messages.";

/// How the model should use the task list, for a conversation that has the task tools.
#[must_use]
pub fn task_guidance() -> String {
    use crate::tools::{AddTask, CompleteTask, DeleteTask, ListTasks, StartTask, UncompleteTask};
    format!(
        "This conversation has a task list that is also your plan, kept with the tools \
         {list}, {add}, {start}, {complete}, {uncomplete} and {delete}. For work of several \
         steps, first add the steps as tasks (with dependencies where order matters), then \
         {start} a task before working on it and {complete} it with a short note when it is \
         done; revise the list when the plan changes. The current list is shown under \
         # Task List at the end of the newest message of every request. Answer simple questions directly, without tasks.",
        list = ListTasks::NAME,
        add = AddTask::NAME,
        start = StartTask::NAME,
        complete = CompleteTask::NAME,
        uncomplete = UncompleteTask::NAME,
        delete = DeleteTask::NAME,
    )
}

/// The parts of a system prompt, in order.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemPromptSections<'a> {
    /// Base instructions (the built-in text plus `systemPrompt` from agent.json).
    pub base: &'a str,
    /// How to use the task tools, when they are offered.
    pub task_guidance: Option<&'a str>,
    /// The skills: each one's name, description and folder (a bounded block).
    pub skills: Option<&'a str>,
    /// The compression summary of everything before the boundary.
    pub summary: Option<&'a str>,
    /// The shell tool's rules.
    pub terminal_rules: Option<&'a str>,
}

/// Joins the non-empty sections with headings: the task guidance under `# Task Tools`,
/// the skills under `# Skills`, the summary under `# Conversation Summary`, the terminal
/// rules under `# Terminal Rules`. Nothing here changes from one step to the next (the
/// task list, which does, follows the newest message: see `plan_note`), so a server's
/// prompt cache keeps it.
#[must_use]
pub fn assemble_system_prompt(sections: &SystemPromptSections<'_>) -> String {
    let mut out = sections.base.trim().to_owned();
    let mut push = |heading: &str, body: Option<&str>| {
        if let Some(body) = body.map(str::trim).filter(|b| !b.is_empty()) {
            out.push_str("\n\n# ");
            out.push_str(heading);
            out.push('\n');
            out.push_str(body);
        }
    };
    push("Task Tools", sections.task_guidance);
    push("Skills", sections.skills);
    push("Conversation Summary", sections.summary);
    push("Terminal Rules", sections.terminal_rules);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_appear_in_order_and_empty_ones_are_left_out() {
        let cases = [
            (
                SystemPromptSections {
                    base: "Base.",
                    ..Default::default()
                },
                "Base.",
            ),
            (
                SystemPromptSections {
                    base: "Base.",
                    summary: Some("Earlier: x"),
                    ..Default::default()
                },
                "Base.\n\n# Conversation Summary\nEarlier: x",
            ),
            (
                SystemPromptSections {
                    base: "Base.",
                    task_guidance: Some("Use tasks."),
                    skills: Some("- pdf: Reads PDFs. (/s/pdf)"),
                    summary: Some("S"),
                    terminal_rules: Some("No sudo."),
                },
                "Base.\n\n# Task Tools\nUse tasks.\n\n# Skills\n- pdf: Reads PDFs. (/s/pdf)\n\n# Conversation Summary\nS\n\n# Terminal Rules\nNo sudo.",
            ),
            (
                SystemPromptSections {
                    base: "Base.",
                    summary: Some("  "),
                    terminal_rules: None,
                    task_guidance: None,
                    skills: None,
                },
                "Base.",
            ),
        ];
        for (sections, expected) in cases {
            assert_eq!(assemble_system_prompt(&sections), expected);
        }
    }
}
