//! The PostgreSQL store has one write path: every statement that changes rows is run
//! by the writer task (`src/write.rs` and `src/write/`), never on the pool. Migrations
//! (`src/migrate.rs`) keep their own connection: they run before the store exists.
//!
//! A write statement is recognised by its SQL (`INSERT INTO`, `UPDATE … SET`,
//! `DELETE FROM` in any case, `TRUNCATE` in capitals, an advisory lock); the writer's module is the only place
//! outside migrations whose source may hold one.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};

/// Where write statements may be written, relative to `src/`.
const WRITER: [&str; 3] = ["write.rs", "write/", "migrate.rs"];

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether a line of source holds a write statement (comments are skipped).
fn writes(line: &str) -> bool {
    let code = line.trim_start();
    if code.starts_with("//") {
        return false;
    }
    let upper = code.to_uppercase();
    let words: Vec<&str> = upper
        .split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect();
    let update_set = words.iter().enumerate().any(|(i, w)| {
        *w == "UPDATE"
            && i.checked_sub(1).and_then(|p| words.get(p)) != Some(&"FOR")
            && words.get(i + 1).is_some_and(|w| *w != "SET")
            && (words.get(i + 2) == Some(&"SET") || words.get(i + 3) == Some(&"SET"))
    });
    update_set
        || upper.contains("INSERT INTO")
        || upper.contains("DELETE FROM")
        || code.contains("TRUNCATE ")
        || upper.contains("PG_ADVISORY")
}

#[test]
fn write_statements_are_recognised() {
    for (line, expected) in [
        (
            r#"sqlx::query("INSERT INTO users (name) VALUES ($1)")"#,
            true,
        ),
        (
            r#""UPDATE conversations SET title = $1 WHERE id = $2""#,
            true,
        ),
        (r#""UPDATE messages m SET token_count = n.tokens \"#, true),
        (r#""DELETE FROM turns WHERE conversation_id = $1""#, true),
        (r#""WITH swept AS (delete from relayed_messages""#, true),
        (
            r#""SELECT pg_advisory_xact_lock(hashtextextended($1, 0))""#,
            true,
        ),
        (r#""TRUNCATE task_lists""#, true),
        (
            r#""SELECT id FROM conversations WHERE id = $1 FOR UPDATE""#,
            false,
        ),
        (
            r#""SELECT body FROM relayed_messages WHERE id = $1""#,
            false,
        ),
        (
            "// UPDATE conversations SET title: documented, not run",
            false,
        ),
        ("/// see `UPDATE … SET`", false),
        (
            "let updated = store.set_compression(id, &update).await?;",
            false,
        ),
    ] {
        assert_eq!(writes(line), expected, "{line}");
    }
}

#[test]
fn every_write_statement_is_in_the_writer() {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&src, &mut files);
    assert!(files.len() > 10, "no sources found under {}", src.display());
    let mut outside = Vec::new();
    for file in files {
        let relative = file
            .strip_prefix(&src)
            .unwrap()
            .to_string_lossy()
            .replace('\\', "/");
        if WRITER.iter().any(|allowed| relative.starts_with(allowed)) {
            continue;
        }
        let text = std::fs::read_to_string(&file).unwrap();
        for (n, line) in text.lines().enumerate() {
            if writes(line) {
                outside.push(format!("src/{relative}:{}: {}", n + 1, line.trim()));
            }
        }
    }
    assert!(
        outside.is_empty(),
        "write statements outside the writer (send them to the writer task as a `Job`/`Edit` \
         in src/write/ instead of running them on the pool):\n{}",
        outside.join("\n")
    );
}
