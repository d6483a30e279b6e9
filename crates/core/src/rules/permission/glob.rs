//! The globs of permission rules: on a workspace-relative path (`docs/**`, `src/*.rs`)
//! and on an MCP tool's name (`mcp__files__read_*`).
//!
//! `*` matches any run of characters but `/`, `?` one character but `/`, and a path
//! part that is exactly `**` any number of parts (none included: `docs/**` matches
//! `docs` too). Every other character is itself; names starting with `.` are not
//! special.

/// A glob on a workspace-relative path, split into its `/`-separated parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct PathGlob {
    parts: Vec<String>,
}

impl PathGlob {
    /// Parses a path glob; `Err` says what is wrong with it.
    pub(super) fn parse(pattern: &str) -> Result<Self, String> {
        let trimmed = pattern.trim();
        if trimmed.is_empty() {
            return Err("the path pattern is empty; write `**` for every path".to_owned());
        }
        if trimmed.starts_with('/') || trimmed.starts_with('~') || trimmed.contains(':') {
            return Err(format!(
                "`{trimmed}` is not relative to the workspace; write the path from the \
                 workspace root, as in `docs/**`"
            ));
        }
        if trimmed.contains('\\') {
            return Err(format!(
                "`{trimmed}` contains `\\`; separate path parts with `/`"
            ));
        }
        let mut parts: Vec<String> = Vec::new();
        for part in trimmed.split('/') {
            match part {
                "" | "." => {}
                ".." => {
                    return Err(format!(
                        "`{trimmed}` climbs out with `..`; write the path from the workspace root"
                    ));
                }
                part if part != "**" && part.contains("**") => {
                    return Err(format!(
                        "`**` must be a whole path part in `{trimmed}`, as in `docs/**/*.md`"
                    ));
                }
                part => parts.push(part.to_owned()),
            }
        }
        if trimmed.ends_with('/') {
            parts.push("**".to_owned());
        }
        Ok(Self { parts })
    }

    /// Whether the workspace-relative `path` (`/`-separated, normalized; `""` is the
    /// root) matches.
    pub(super) fn matches(&self, path: &str) -> bool {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        let pattern: Vec<&str> = self.parts.iter().map(String::as_str).collect();
        parts_match(&pattern, &parts)
    }
}

/// Whether the pattern parts match the path parts (`**` any number of parts).
fn parts_match(pattern: &[&str], parts: &[&str]) -> bool {
    // matched[j]: the pattern so far matches parts[..j].
    let mut matched = vec![false; parts.len() + 1];
    matched[0] = true;
    for piece in pattern {
        let mut next = vec![false; parts.len() + 1];
        if *piece == "**" {
            let mut reachable = false;
            for (j, slot) in next.iter_mut().enumerate() {
                reachable |= matched[j];
                *slot = reachable;
            }
        } else {
            for j in 1..=parts.len() {
                next[j] = matched[j - 1] && name_match(piece, parts[j - 1]);
            }
        }
        matched = next;
    }
    matched[parts.len()]
}

/// Whether `text` matches the glob `pattern` (`*` any run, `?` one character).
pub(super) fn name_match(pattern: &str, text: &str) -> bool {
    let text: Vec<char> = text.chars().collect();
    let mut matched = vec![false; text.len() + 1];
    matched[0] = true;
    for piece in pattern.chars() {
        let mut next = vec![false; text.len() + 1];
        match piece {
            '*' => {
                let mut reachable = false;
                for (j, slot) in next.iter_mut().enumerate() {
                    reachable |= matched[j];
                    *slot = reachable;
                }
            }
            piece => {
                for j in 1..=text.len() {
                    next[j] = matched[j - 1] && (piece == '?' || piece == text[j - 1]);
                }
            }
        }
        matched = next;
    }
    matched[text.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_globs_match_workspace_paths() {
        // (pattern, path, matches)
        let cases: &[(&str, &str, bool)] = &[
            ("docs/**", "docs/a.md", true),
            ("docs/**", "docs/x/y/z.md", true),
            ("docs/**", "docs", true),
            ("docs/**", "doc/a.md", false),
            ("docs/**", "src/docs/a.md", false),
            ("docs/", "docs/a.md", true),
            ("./docs/*.md", "docs/a.md", true),
            ("docs/*.md", "docs/x/a.md", false),
            ("docs/*", "docs/.hidden", true),
            ("**/*.rs", "main.rs", true),
            ("**/*.rs", "src/a/b.rs", true),
            ("**/*.rs", "src/a/b.rsx", false),
            ("src/**/mod.rs", "src/mod.rs", true),
            ("src/**/mod.rs", "src/a/b/mod.rs", true),
            ("**/.env", ".env", true),
            ("**/.env", "a/.env", true),
            ("**", "", true),
            ("**", "any/thing", true),
            ("*", "a/b", false),
            ("?.txt", "a.txt", true),
            ("?.txt", "ab.txt", false),
            ("a?b", "a/b", false),
            ("README.md", "README.md", true),
            ("README.md", "readme.md", false),
            ("[x].md", "[x].md", true),
            ("a//b", "a/b", true),
        ];
        for &(pattern, path, expected) in cases {
            let Ok(glob) = PathGlob::parse(pattern) else {
                panic!("{pattern} does not parse");
            };
            assert_eq!(glob.matches(path), expected, "{pattern} ~ {path}");
        }
    }

    #[test]
    fn malformed_path_globs_say_what_is_wrong() {
        // (pattern, part of the message)
        let cases: &[(&str, &str)] = &[
            ("", "empty"),
            ("  ", "empty"),
            ("/etc/**", "not relative to the workspace"),
            ("~/x", "not relative to the workspace"),
            ("C:/x", "not relative to the workspace"),
            ("a\\b", "separate path parts with `/`"),
            ("../x", "climbs out"),
            ("docs/../x", "climbs out"),
            ("docs**", "`**` must be a whole path part"),
            ("a/**b/c", "`**` must be a whole path part"),
        ];
        for &(pattern, want) in cases {
            match PathGlob::parse(pattern) {
                Err(message) => assert!(message.contains(want), "{pattern}: {message}"),
                Ok(glob) => panic!("{pattern} parsed as {glob:?}"),
            }
        }
    }

    #[test]
    fn name_globs() {
        let cases: &[(&str, &str, bool)] = &[
            ("mcp__files__*", "mcp__files__read", true),
            ("mcp__files__*", "mcp__filesystem__read", false),
            ("mcp__*__read", "mcp__a__read", true),
            ("mcp__f?les__read", "mcp__files__read", true),
            ("mcp__files__read", "mcp__files__read_all", false),
            ("*", "", true),
        ];
        for &(pattern, text, expected) in cases {
            assert_eq!(name_match(pattern, text), expected, "{pattern} ~ {text}");
        }
    }
}
