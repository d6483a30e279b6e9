//! The limits of each front-matter field, one function per rule.

/// Longest `name`, in characters.
pub const NAME_MAX_CHARS: usize = 64;
/// Longest `description`, in characters.
pub const DESCRIPTION_MAX_CHARS: usize = 1024;
/// Longest `compatibility`, in characters.
pub const COMPATIBILITY_MAX_CHARS: usize = 500;
/// The front-matter keys the format defines.
pub const KNOWN_KEYS: [&str; 6] = [
    "name",
    "description",
    "license",
    "compatibility",
    "metadata",
    "allowed-tools",
];

/// What is wrong with `name` as the name of a skill in the folder `folder` (`None`:
/// nothing): 1–64 lowercase letters, digits and hyphens, no leading, trailing or
/// doubled hyphen, and equal to the folder's name when one is given.
#[must_use]
pub fn name_problem(name: &str, folder: Option<&str>) -> Option<String> {
    let chars = name.chars().count();
    if chars == 0 {
        return Some("'name' is empty; give the skill a name (its folder's name)".to_owned());
    }
    if chars > NAME_MAX_CHARS {
        return Some(format!(
            "'name' has {chars} characters; at most {NAME_MAX_CHARS} are allowed"
        ));
    }
    if !name
        .chars()
        .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
    {
        return Some(format!(
            "'name' '{name}' may hold only lowercase letters a-z, digits and hyphens"
        ));
    }
    if name.starts_with('-') || name.ends_with('-') {
        return Some(format!(
            "'name' '{name}' must not start or end with a hyphen"
        ));
    }
    if name.contains("--") {
        return Some(format!(
            "'name' '{name}' must not hold two hyphens in a row"
        ));
    }
    match folder {
        Some(folder) if folder != name => Some(format!(
            "'name' '{name}' differs from its folder '{folder}'; rename one so they match"
        )),
        _ => None,
    }
}

/// What is wrong with `description` (`None`: nothing): 1–1024 characters, not blank.
#[must_use]
pub fn description_problem(description: &str) -> Option<String> {
    let chars = description.chars().count();
    if description.trim().is_empty() {
        return Some(
            "'description' is empty; say what the skill does and when to use it".to_owned(),
        );
    }
    (chars > DESCRIPTION_MAX_CHARS).then(|| {
        format!("'description' has {chars} characters; at most {DESCRIPTION_MAX_CHARS} are allowed")
    })
}

/// What is wrong with `compatibility` (`None`: nothing): at most 500 characters.
#[must_use]
pub fn compatibility_problem(compatibility: &str) -> Option<String> {
    let chars = compatibility.chars().count();
    (chars > COMPATIBILITY_MAX_CHARS).then(|| {
        format!(
            "'compatibility' has {chars} characters; at most {COMPATIBILITY_MAX_CHARS} are allowed"
        )
    })
}

/// The tool names of an `allowed-tools` field: separated by spaces (commas are read as
/// spaces too), a parenthesized argument pattern kept with its tool (`Bash(git add:*)`).
///
/// # Errors
/// An unbalanced parenthesis.
pub fn split_allowed_tools(field: &str) -> Result<Vec<String>, String> {
    let mut tools = Vec::new();
    let mut current = String::new();
    let mut depth = 0usize;
    for c in field.chars() {
        match c {
            '(' => {
                depth += 1;
                current.push(c);
            }
            ')' => {
                depth = depth.checked_sub(1).ok_or_else(|| {
                    format!("'allowed-tools' has a ')' without its '(' in '{field}'")
                })?;
                current.push(c);
            }
            c if depth == 0 && (c.is_whitespace() || c == ',') => {
                if !current.is_empty() {
                    tools.push(std::mem::take(&mut current));
                }
            }
            c => current.push(c),
        }
    }
    if depth > 0 {
        return Err(format!(
            "'allowed-tools' has a '(' that is never closed in '{field}'"
        ));
    }
    if !current.is_empty() {
        tools.push(current);
    }
    Ok(tools)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        let long = "a".repeat(65);
        let cases: [(&str, Option<&str>, Option<&str>); 11] = [
            ("pdf-tools", Some("pdf-tools"), None),
            ("a", None, None),
            ("x2", Some("x2"), None),
            ("", None, Some("empty")),
            (&long, None, Some("65 characters")),
            ("PDF", None, Some("lowercase")),
            ("pdf_tools", None, Some("lowercase")),
            ("-pdf", None, Some("start or end")),
            ("pdf-", None, Some("start or end")),
            ("pdf--tools", None, Some("two hyphens")),
            (
                "pdf",
                Some("pdf-tools"),
                Some("differs from its folder 'pdf-tools'"),
            ),
        ];
        for (name, folder, expected) in cases {
            let problem = name_problem(name, folder);
            match expected {
                None => assert_eq!(problem, None, "{name}"),
                Some(part) => assert!(
                    problem.as_deref().is_some_and(|p| p.contains(part)),
                    "{name}: {problem:?}"
                ),
            }
        }
        assert_eq!(name_problem(&"a".repeat(64), None), None);
    }

    #[test]
    fn descriptions_and_compatibility() {
        let cases = [
            ("Does x. Use when y.".to_owned(), None),
            ("  ".to_owned(), Some("empty")),
            ("d".repeat(1024), None),
            ("d".repeat(1025), Some("1025 characters")),
            ("é".repeat(1024), None),
        ];
        for (text, expected) in cases {
            let problem = description_problem(&text);
            assert_eq!(problem.is_some(), expected.is_some(), "{text}");
            if let (Some(problem), Some(part)) = (problem, expected) {
                assert!(problem.contains(part), "{problem}");
            }
        }
        assert_eq!(compatibility_problem(&"c".repeat(500)), None);
        assert!(compatibility_problem(&"c".repeat(501)).is_some_and(|p| p.contains("501")));
    }

    #[test]
    fn allowed_tools() {
        let cases: [(&str, Result<Vec<&str>, &str>); 6] = [
            ("", Ok(vec![])),
            (
                "ReadFile ExecuteCommand",
                Ok(vec!["ReadFile", "ExecuteCommand"]),
            ),
            ("Read, Grep", Ok(vec!["Read", "Grep"])),
            ("Bash(git add:*) Read", Ok(vec!["Bash(git add:*)", "Read"])),
            ("Bash(git", Err("never closed")),
            ("Bash)", Err("without its")),
        ];
        for (field, expected) in cases {
            match (split_allowed_tools(field), expected) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{field}"),
                (Err(got), Err(part)) => assert!(got.contains(part), "{got}"),
                (got, want) => panic!("{field}: {got:?} vs {want:?}"),
            }
        }
    }
}
