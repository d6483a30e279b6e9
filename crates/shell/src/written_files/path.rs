//! Lexical path joining and normalizing (no filesystem access).

/// Whether `path` is absolute: `/x`, `\x`, `~`/`~/x`, or a drive path like `C:\x`.
pub(super) fn is_absolute(path: &str) -> bool {
    let bytes = path.as_bytes();
    path.starts_with('/')
        || path.starts_with('\\')
        || path == "~"
        || path.starts_with("~/")
        || (bytes.len() >= 3
            && bytes[0].is_ascii_alphabetic()
            && bytes[1] == b':'
            && matches!(bytes[2], b'/' | b'\\'))
}

/// `path` resolved against `base` (unless absolute), then normalized.
pub(super) fn resolve(base: &str, path: &str) -> String {
    if is_absolute(path) || base.is_empty() {
        normalize(path)
    } else {
        normalize(&format!("{base}/{path}"))
    }
}

/// Removes `.` segments, empty segments and a trailing `/`, and folds `..` into the
/// segment before it (a `..` above the root of an absolute path is dropped; leading `..`
/// of a relative path are kept). An empty result is `.` (or `/` for the root).
pub(super) fn normalize(path: &str) -> String {
    let absolute = path.starts_with('/');
    let mut parts: Vec<&str> = Vec::new();
    for segment in path.split('/') {
        match segment {
            "" | "." => {}
            ".." => match parts.last() {
                Some(&last) if parts.len() == 1 && is_root_like(last) => {}
                Some(&last) if last != ".." => {
                    parts.pop();
                }
                None if absolute => {}
                _ => parts.push(".."),
            },
            _ => parts.push(segment),
        }
    }
    let joined = parts.join("/");
    match (absolute, joined.is_empty()) {
        (true, _) => format!("/{joined}"),
        (false, true) => ".".to_owned(),
        (false, false) => joined,
    }
}

/// A first segment that `..` cannot climb above: `~` or a drive like `C:`.
fn is_root_like(segment: &str) -> bool {
    segment == "~" || (segment.len() == 2 && segment.ends_with(':'))
}

/// The last segment of a path (`a/b/` → `b`).
pub(super) fn basename(path: &str) -> &str {
    path.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_and_normalizes_lexically() {
        let cases = [
            ("/ws", "a.txt", "/ws/a.txt"),
            ("/ws", "./a/./b.txt", "/ws/a/b.txt"),
            ("/ws", "a/../b.txt", "/ws/b.txt"),
            ("/ws/sub", "../b.txt", "/ws/b.txt"),
            ("/ws", "/tmp/x", "/tmp/x"),
            ("/ws", "/../x", "/x"),
            ("/", "x", "/x"),
            ("/ws", "d/e/", "/ws/d/e"),
            ("", "b.txt", "b.txt"),
            ("", "../b.txt", "../b.txt"),
            ("rel", "../../b", "../b"),
            ("/ws", "~/x", "~/x"),
            ("/ws", "~/../x", "~/x"),
            ("/ws", ".", "/ws"),
            ("", ".", "."),
        ];
        for (base, path, expected) in cases {
            assert_eq!(resolve(base, path), expected, "{base} + {path}");
        }
    }

    #[test]
    fn basename_ignores_a_trailing_slash() {
        for (path, expected) in [
            ("a", "a"),
            ("d/e/f.txt", "f.txt"),
            ("dir/", "dir"),
            ("/x/y", "y"),
        ] {
            assert_eq!(basename(path), expected);
        }
    }
}
