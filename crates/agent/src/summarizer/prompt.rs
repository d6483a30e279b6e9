//! The summary prompt (SKILL.md) and the request text.

use std::path::Path;

use super::transcript::Entry;

/// The shipped compaction skill (`.agents/sys.skills/compact/SKILL.md` of the
/// repository), built in: a home without its own SKILL.md gets the same prompt.
pub const SHIPPED_COMPACT_SKILL: &str =
    include_str!("../../../../.agents/sys.skills/compact/SKILL.md");

/// The prompt used when the home has no readable, non-empty SKILL.md: the shipped
/// skill without its front matter.
#[must_use]
pub fn default_compact_prompt() -> &'static str {
    strip_front_matter(SHIPPED_COMPACT_SKILL).trim()
}

/// The prompt of `SKILL.md` without its front matter, or [`default_compact_prompt`]
/// when the file is missing, unreadable or empty.
#[must_use]
pub fn load_compact_prompt(path: &Path) -> String {
    let Ok(text) = std::fs::read_to_string(path) else {
        return default_compact_prompt().to_owned();
    };
    let body = strip_front_matter(&text).trim();
    if body.is_empty() {
        default_compact_prompt().to_owned()
    } else {
        body.to_owned()
    }
}

fn strip_front_matter(text: &str) -> &str {
    let Some(rest) = text.strip_prefix("---") else {
        return text;
    };
    match rest.find("\n---") {
        Some(end) => {
            let after = &rest[end + 4..];
            after.strip_prefix('\n').unwrap_or(after)
        }
        None => text,
    }
}

/// The user message of one summary request; the summary is asked to stay under
/// `max_tokens` tokens.
#[must_use]
pub fn summary_request_text(
    previous: Option<&str>,
    entries: &[Entry],
    focus: Option<&str>,
    max_tokens: u32,
) -> String {
    let mut out = String::new();
    if let Some(previous) = previous.filter(|p| !p.trim().is_empty()) {
        out.push_str("## Previous summary (merge it; drop nothing that still matters)\n");
        out.push_str(previous.trim());
        out.push_str("\n\n");
    }
    out.push_str("## Conversation to summarize\n");
    for entry in entries {
        out.push_str(&entry.text);
        out.push('\n');
    }
    if let Some(focus) = focus.map(str::trim).filter(|f| !f.is_empty()) {
        out.push_str("\n## Focus\nThe person asked this summary to focus on: ");
        out.push_str(focus);
        out.push('\n');
    }
    out.push_str("\nWrite the new summary now, in the sections described, in under ");
    out.push_str(&max_tokens.to_string());
    out.push_str(" tokens.");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn front_matter_is_stripped_and_missing_files_use_the_default() {
        let cases = [
            ("---\nname: compact\n---\n# Body\ntext", "# Body\ntext"),
            ("no front matter", "no front matter"),
            ("---\nunterminated", "---\nunterminated"),
        ];
        for (input, expected) in cases {
            assert_eq!(strip_front_matter(input).trim(), expected);
        }
        // A home without SKILL.md gets the shipped skill's whole prompt.
        let default = load_compact_prompt(Path::new("/definitely/missing/SKILL.md"));
        assert!(default.starts_with("# Context Compression"), "{default}");
        assert!(default.len() > 1000, "the real prompt, not a paragraph");
        assert_eq!(default, default_compact_prompt());
    }

    #[test]
    fn request_text_has_previous_summary_rows_and_focus() {
        let entries = vec![Entry {
            kind: super::super::EntryKind::User,
            text: "USER: hi".into(),
            tokens: 1,
        }];
        let text = summary_request_text(Some("old facts"), &entries, Some("the API"), 500);
        assert!(text.contains("## Previous summary"));
        assert!(text.contains("old facts"));
        assert!(text.contains("USER: hi"));
        assert!(text.contains("focus on: the API"));
        assert!(text.ends_with("in the sections described, in under 500 tokens."));
        let bare = summary_request_text(None, &entries, None, 500);
        assert!(!bare.contains("Previous summary") && !bare.contains("Focus"));
    }
}
