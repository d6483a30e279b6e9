//! Which paths a checkpoint leaves out: `.gitignore` rules, matched by the `ignore`
//! crate's gitignore matcher (the walker of that crate is not used: the tree is read
//! through the confined file system).

use ignore::gitignore::{Gitignore, GitignoreBuilder};

use crate::error::CheckpointError;

/// The rules every workspace starts with: version-control data and common build
/// output.
pub const DEFAULT_RULES: [&str; 4] = [".git/", "target/", "node_modules/", "__pycache__/"];

/// `.gitignore`-style rules over paths relative to the workspace.
#[derive(Debug, Clone)]
pub struct IgnoreRules {
    matcher: Gitignore,
}

impl IgnoreRules {
    /// The rules `lines` in `.gitignore` syntax, in order (a later `!pattern` takes a
    /// path back). Blank lines and `#` comments are allowed.
    ///
    /// # Errors
    /// [`CheckpointError::IgnoreRule`] naming the first rule that is not valid.
    pub fn new<S: AsRef<str>>(lines: &[S]) -> Result<Self, CheckpointError> {
        // The root is only where patterns are anchored; paths given are relative.
        let mut builder = GitignoreBuilder::new("");
        for line in lines {
            let line = line.as_ref();
            builder
                .add_line(None, line)
                .map_err(|err| CheckpointError::IgnoreRule {
                    rule: line.to_owned(),
                    message: err.to_string(),
                })?;
        }
        let matcher = builder.build().map_err(|err| CheckpointError::IgnoreRule {
            rule: lines
                .iter()
                .map(AsRef::as_ref)
                .collect::<Vec<_>>()
                .join(", "),
            message: err.to_string(),
        })?;
        Ok(Self { matcher })
    }

    /// [`DEFAULT_RULES`] followed by `lines`, then the workspace's own `.gitignore`
    /// text when there is one.
    ///
    /// # Errors
    /// As [`IgnoreRules::new`].
    pub fn with_defaults<S: AsRef<str>>(
        lines: &[S],
        gitignore: Option<&str>,
    ) -> Result<Self, CheckpointError> {
        let mut all: Vec<&str> = DEFAULT_RULES.to_vec();
        all.extend(lines.iter().map(AsRef::as_ref));
        if let Some(text) = gitignore {
            all.extend(text.lines());
        }
        Self::new(&all)
    }

    /// Whether the path `relative` (a folder when `dir`) is left out. A path inside a
    /// left-out folder is never asked: the scan does not enter it.
    #[must_use]
    pub fn ignores(&self, relative: &str, dir: bool) -> bool {
        self.matcher.matched(relative, dir).is_ignore()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rules_table() -> Result<(), CheckpointError> {
        let rules =
            IgnoreRules::with_defaults(&["*.log", "!keep.log", "/build", "docs/**/*.tmp"], None)?;
        let rows = [
            ("target", true, true),
            ("target", false, false),
            ("src/target", true, true),
            (".git", true, true),
            ("a.log", false, true),
            ("deep/a.log", false, true),
            ("keep.log", false, false),
            ("build", true, true),
            ("src/build", true, false),
            ("docs/x/y/z.tmp", false, true),
            ("z.tmp", false, false),
            ("main.rs", false, false),
        ];
        for (path, dir, want) in rows {
            assert_eq!(rules.ignores(path, dir), want, "{path} dir={dir}");
        }
        Ok(())
    }

    #[test]
    fn gitignore_text_is_read() -> Result<(), CheckpointError> {
        let rules = IgnoreRules::with_defaults::<&str>(&[], Some("# comment\n\ndist/\n*.o\n"))?;
        assert!(rules.ignores("dist", true));
        assert!(rules.ignores("x/y.o", false));
        assert!(!rules.ignores("y.c", false));
        Ok(())
    }

    #[test]
    fn a_bad_rule_is_named() {
        let err = IgnoreRules::new(&["ok", "a[z-a]"]).map(drop);
        match err {
            Err(CheckpointError::IgnoreRule { rule, .. }) => assert_eq!(rule, "a[z-a]"),
            other => panic!("expected the bad rule named, got {other:?}"),
        }
    }
}
