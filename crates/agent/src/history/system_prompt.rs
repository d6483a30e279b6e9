//! The system prompt, assembled from sections.

/// The base instructions every conversation starts with.
pub const BASE_INSTRUCTIONS: &str = "You are SmallEBot, a capable assistant that works on the \
person's machine through tools. Think before acting, call tools when they help, and say \
plainly what you did and what you found. Keep exact paths, names and error messages.";

/// The parts of a system prompt, in order.
#[derive(Debug, Clone, Copy, Default)]
pub struct SystemPromptSections<'a> {
    /// Base instructions (the built-in text plus `systemPrompt` from agent.json).
    pub base: &'a str,
    /// The compression summary of everything before the boundary.
    pub summary: Option<&'a str>,
    /// The current task list (plan), re-injected every step.
    pub plan: Option<&'a str>,
    /// The shell tool's rules.
    pub terminal_rules: Option<&'a str>,
}

/// Joins the non-empty sections with headings: the summary under
/// `# Conversation Summary`, the plan under `# Task List`, the terminal rules under
/// `# Terminal Rules`.
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
    push("Conversation Summary", sections.summary);
    push("Task List", sections.plan);
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
                    summary: Some("S"),
                    plan: Some("Plan:\nProgress: 0/1 (0.0%)"),
                    terminal_rules: Some("No sudo."),
                },
                "Base.\n\n# Conversation Summary\nS\n\n# Task List\nPlan:\nProgress: 0/1 (0.0%)\n\n# Terminal Rules\nNo sudo.",
            ),
            (
                SystemPromptSections {
                    base: "Base.",
                    summary: Some("  "),
                    plan: Some(""),
                    terminal_rules: None,
                },
                "Base.",
            ),
        ];
        for (sections, expected) in cases {
            assert_eq!(assemble_system_prompt(&sections), expected);
        }
    }
}
