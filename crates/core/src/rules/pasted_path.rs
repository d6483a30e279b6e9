//! A line of the chat that is only file paths, as a file manager puts them on the
//! terminal when files are dragged onto it: absolute paths, shell-quoted
//! (`'/home/me/My Shots/a.png'`) or with backslash escapes (`/home/me/My\ Shots/a.png`),
//! `~/` paths, or `file://` URLs. Such a line may be meant as attachments rather than
//! text; whether the files exist and are images is for the caller to see.

use percent_encoding::percent_decode_str;

/// The paths of `line` when it holds nothing but absolute paths (one or more, as
/// dragging several files gives), unquoted and unescaped; `~/` is expanded with
/// `home` (without it such a line is not paths). `None` for anything else: a relative
/// path (`shot.png` could be a word), text around the paths, a `file://` URL of
/// another host, quoting that does not close.
#[must_use]
pub fn pasted_paths(line: &str, home: Option<&str>) -> Option<Vec<String>> {
    let words = shlex::split(line.trim())?;
    if words.is_empty() {
        return None;
    }
    words.iter().map(|word| absolute(word, home)).collect()
}

/// A path typed after a command (`/attach`): unquoted and unescaped when it is one
/// shell word (`'my notes.txt'`, `my\ notes.txt`), a `file://` URL decoded; else as
/// typed, trimmed.
#[must_use]
pub fn typed_path(argument: &str) -> String {
    let argument = argument.trim();
    match shlex::split(argument).as_deref() {
        Some([word]) => absolute(word, None)
            .filter(|_| word.starts_with("file://"))
            .unwrap_or_else(|| word.clone()),
        _ => argument.to_owned(),
    }
}

/// `path` with a leading `~` or `~/` replaced by `home` (as a shell does for the user's
/// own home directory); any other path, `~user/…`, or any path without a `home`, as
/// it is.
#[must_use]
pub fn expand_home(path: &str, home: Option<&str>) -> String {
    let rest = match path.strip_prefix('~') {
        Some(rest) if rest.is_empty() || rest.starts_with('/') => rest,
        _ => return path.to_owned(),
    };
    match home {
        Some(home) => format!("{}{rest}", home.trim_end_matches('/')),
        None => path.to_owned(),
    }
}

/// The absolute path `word` names, if it names one.
fn absolute(word: &str, home: Option<&str>) -> Option<String> {
    if let Some(rest) = word.strip_prefix("file://") {
        // `file:///path` or `file://localhost/path`; the path is percent-encoded.
        let path = rest.strip_prefix("localhost").unwrap_or(rest);
        let decoded = percent_decode_str(path).decode_utf8().ok()?;
        return decoded.starts_with('/').then(|| decoded.into_owned());
    }
    if word.starts_with("~/") {
        return home.map(|home| expand_home(word, Some(home)));
    }
    (word.starts_with('/') && word.len() > 1).then(|| word.to_owned())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_lines_of_absolute_paths_are_pasted_paths() {
        let home = Some("/home/me");
        let cases: &[(&str, Option<&[&str]>)] = &[
            ("/tmp/shot.png", Some(&["/tmp/shot.png"])),
            ("  /tmp/shot.png \n", Some(&["/tmp/shot.png"])),
            (
                "'/home/me/My Shots/a.png' ",
                Some(&["/home/me/My Shots/a.png"]),
            ),
            ("\"/tmp/a b.png\"", Some(&["/tmp/a b.png"])),
            (
                "/home/me/My\\ Shots/a\\ \\(1\\).png",
                Some(&["/home/me/My Shots/a (1).png"]),
            ),
            ("file:///tmp/a%20b.png", Some(&["/tmp/a b.png"])),
            ("file://localhost/tmp/x.png", Some(&["/tmp/x.png"])),
            ("~/shots/a.png", Some(&["/home/me/shots/a.png"])),
            (
                "'/tmp/a.png' '/tmp/b.png'",
                Some(&["/tmp/a.png", "/tmp/b.png"]),
            ),
            // Not only paths: text, relative names, other hosts, open quotes.
            ("look at /tmp/shot.png", None),
            ("shot.png", None),
            ("./shot.png", None),
            ("file://server/share/a.png", None),
            ("'/tmp/unclosed.png", None),
            ("/", None),
            ("", None),
            ("   ", None),
        ];
        for (line, expected) in cases {
            let expected = expected.map(|paths| paths.iter().map(|p| (*p).to_owned()).collect());
            assert_eq!(pasted_paths(line, home), expected, "{line:?}");
        }
        assert_eq!(pasted_paths("~/a.png", None), None);
    }

    #[test]
    fn a_leading_tilde_is_the_home_directory() {
        let home = Some("/home/me/");
        let cases = [
            ("~/notes.md", home, "/home/me/notes.md"),
            ("~", home, "/home/me"),
            ("~/", home, "/home/me/"),
            ("~alice/notes.md", home, "~alice/notes.md"),
            ("notes~/x", home, "notes~/x"),
            ("./~/x", home, "./~/x"),
            ("/tmp/x", home, "/tmp/x"),
            ("~/notes.md", None, "~/notes.md"),
        ];
        for (path, home, expected) in cases {
            assert_eq!(expand_home(path, home), expected, "{path:?} {home:?}");
        }
    }

    #[test]
    fn a_typed_path_is_unquoted_when_it_is_one_word() {
        let cases = [
            ("notes.txt", "notes.txt"),
            (" 'my notes.txt' ", "my notes.txt"),
            ("my\\ notes.txt", "my notes.txt"),
            ("file:///tmp/a%20b.png", "/tmp/a b.png"),
            ("my notes.txt", "my notes.txt"),
            ("'open", "'open"),
        ];
        for (typed, expected) in cases {
            assert_eq!(typed_path(typed), expected, "{typed:?}");
        }
    }
}
