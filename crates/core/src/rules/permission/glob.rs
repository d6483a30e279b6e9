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
        self.prefixes_matching(path)
            .last()
            .copied()
            .unwrap_or(false)
    }

    /// Whether the pattern may match the directory `dir` or something under it (a
    /// recursive read of `dir` may reach a path it matches): some start of the pattern
    /// matches `dir` exactly, the rest could match what lies below.
    pub(super) fn may_match_within(&self, dir: &str) -> bool {
        self.prefixes_matching(dir)
            .into_iter()
            .any(|matched| matched)
    }

    /// Whether the pattern matches the directory `dir` and everything under it: a start
    /// of the pattern matches `dir` exactly and the rest is only `**`, or the pattern
    /// ends in a `**` that already took part of `dir`.
    pub(super) fn covers(&self, dir: &str) -> bool {
        let ends_open = self.parts.last().is_some_and(|last| last == "**");
        ends_open
            && self
                .prefixes_matching(dir)
                .iter()
                .enumerate()
                .any(|(k, &matched)| matched && self.parts[k..].iter().all(|p| p == "**"))
    }

    /// For each start of the pattern (its first `k` parts, `k` from 0 to all of them),
    /// whether it matches all of `path`.
    fn prefixes_matching(&self, path: &str) -> Vec<bool> {
        let parts: Vec<&str> = path.split('/').filter(|p| !p.is_empty()).collect();
        // matched[j]: the pattern so far matches parts[..j].
        let mut matched = vec![false; parts.len() + 1];
        matched[0] = true;
        let mut whole = Vec::with_capacity(self.parts.len() + 1);
        whole.push(matched[parts.len()]);
        for piece in &self.parts {
            let mut next = vec![false; parts.len() + 1];
            if piece == "**" {
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
            whole.push(matched[parts.len()]);
        }
        whole
    }
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
    fn path_globs_on_a_directory_and_what_lies_under_it() {
        // (pattern, directory, may match within, covers)
        let cases: &[(&str, &str, bool, bool)] = &[
            ("secrets/**", "", true, false),
            ("secrets/**", "secrets", true, true),
            ("secrets/**", "secrets/old", true, true),
            ("secrets/**", "docs", false, false),
            ("**/.env", "", true, false),
            ("**/.env", "a/b", true, false),
            ("*.md", "", true, false),
            ("*.md", "docs", false, false),
            ("docs/*.md", "docs", true, false),
            ("docs/*", "docs", true, false),
            ("d*/x", "docs", true, false),
            ("src/**", "docs", false, false),
            ("**", "", true, true),
            ("**", "a/b", true, true),
            ("docs/**", "", true, false),
            ("src/**/x/**", "src", true, false),
            ("**/?", "x", true, false),
            ("README.md", "", true, false),
            ("README.md", "README.md", true, false),
        ];
        for &(pattern, dir, within, covers) in cases {
            let Ok(glob) = PathGlob::parse(pattern) else {
                panic!("{pattern} does not parse");
            };
            assert_eq!(
                glob.may_match_within(dir),
                within,
                "{pattern} within {dir:?}"
            );
            assert_eq!(glob.covers(dir), covers, "{pattern} covers {dir:?}");
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
