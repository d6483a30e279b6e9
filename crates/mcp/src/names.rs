//! Tool names the model sees for MCP tools: `{server}__{tool}`, with every character
//! providers refuse replaced by `_` and cut to 64 characters (OpenAI's limit).

/// The longest tool name providers accept.
pub(crate) const MAX_TOOL_NAME: usize = 64;

/// `{server}__{tool}`, sanitized to `[A-Za-z0-9_-]` and at most [`MAX_TOOL_NAME`]
/// characters.
pub(crate) fn tool_name(server: &str, tool: &str) -> String {
    format!("{server}__{tool}")
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '_' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(MAX_TOOL_NAME)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_table() {
        let long = "t".repeat(80);
        let cases = [
            ("git", "status", "git__status".to_owned()),
            ("fs", "read.file", "fs__read_file".to_owned()),
            ("fs", "grüße/x y", "fs__gr__e_x_y".to_owned()),
            ("a-b", "c-d", "a-b__c-d".to_owned()),
            ("s", long.as_str(), format!("s__{}", "t".repeat(61))),
        ];
        for (server, tool, expected) in cases {
            assert_eq!(tool_name(server, tool), expected, "{server} {tool}");
            assert!(tool_name(server, tool).len() <= MAX_TOOL_NAME);
        }
    }
}
