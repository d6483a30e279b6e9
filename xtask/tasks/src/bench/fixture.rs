//! Filling a database fast (one transaction, plain inserts) for benchmarks.

use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use sqlx::SqlitePool;

/// Text of about `words` words drawn from a vocabulary, varied by `n`.
pub fn sentence(n: usize, words: usize) -> String {
    const VOCABULARY: &[&str] = &[
        "deploy",
        "config",
        "error",
        "python",
        "server",
        "database",
        "index",
        "query",
        "build",
        "test",
        "release",
        "branch",
        "docker",
        "cache",
        "timeout",
        "memory",
        "socket",
        "thread",
        "parser",
        "tokenizer",
        "summary",
        "workspace",
        "network",
        "latency",
        "schema",
        "migration",
        "kernel",
        "package",
        "version",
        "compile",
        "warning",
        "module",
        "function",
        "pointer",
        "request",
        "response",
        "stream",
        "buffer",
        "header",
        "payload",
    ];
    let mut out = String::with_capacity(words * 8 + 12);
    let mut x = n.wrapping_mul(2_654_435_761).wrapping_add(7);
    for _ in 0..words {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        out.push_str(VOCABULARY[x % VOCABULARY.len()]);
        out.push(' ');
    }
    out.push_str(&format!("item{n}"));
    out
}

/// Inserts a conversation of `turns` turns (a user and an assistant message each, of
/// `words` words and `tokens` stored tokens) directly with SQL.
pub async fn fill_conversation(
    pool: &SqlitePool,
    user: &str,
    turns: usize,
    words: usize,
    tokens: i64,
) -> Result<ConversationId, String> {
    fill_conversation_with(pool, user, turns, tokens, |n| sentence(n, words)).await
}

/// Inserts a conversation of `turns` turns (a user and an assistant message each, of
/// `tokens` stored tokens) directly with SQL; message `n` (from 0, the user's even,
/// the assistant's odd) says `text(n)`.
pub async fn fill_conversation_with(
    pool: &SqlitePool,
    user: &str,
    turns: usize,
    tokens: i64,
    text: impl Fn(usize) -> String,
) -> Result<ConversationId, String> {
    let id = ConversationId::new();
    let at = "2026-01-01T00:00:00.000Z";
    let err = |e: sqlx::Error| format!("filling the benchmark database: {e}");
    let mut tx = pool.begin().await.map_err(err)?;
    sqlx::query("INSERT INTO conversations (id, user_name, title, created_at, updated_at, last_seq) VALUES (?1, ?2, 'bench', ?3, ?3, ?4)")
        .bind(id.to_string())
        .bind(user)
        .bind(at)
        .bind(i64::try_from(turns * 3).unwrap_or(i64::MAX))
        .execute(&mut *tx)
        .await
        .map_err(err)?;
    let mut seq = 0i64;
    for t in 0..turns {
        let turn = TurnId::new();
        seq += 1;
        sqlx::query("INSERT INTO turns (id, conversation_id, seq, status, created_at) VALUES (?1, ?2, ?3, 'completed', ?4)")
            .bind(turn.to_string())
            .bind(id.to_string())
            .bind(seq)
            .bind(at)
            .execute(&mut *tx)
            .await
            .map_err(err)?;
        for role in ["user", "assistant"] {
            seq += 1;
            sqlx::query("INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, created_at) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
                .bind(MessageId::new().to_string())
                .bind(id.to_string())
                .bind(turn.to_string())
                .bind(seq)
                .bind(role)
                .bind(text(t * 2 + usize::from(role == "assistant")))
                .bind(tokens)
                .bind(at)
                .execute(&mut *tx)
                .await
                .map_err(err)?;
        }
    }
    tx.commit().await.map_err(err)?;
    Ok(id)
}

/// A Markdown answer of at least `bytes` bytes, as models write them: sections of a
/// heading, a paragraph with inline markup, a list, a Rust code block, a table and a
/// quote, varied by `n`; it ends with "End of answer `n`.".
pub fn markdown_answer(n: usize, bytes: usize) -> String {
    let mut out = String::with_capacity(bytes + 2048);
    let mut section = 0;
    while out.len() < bytes {
        let k = n * 1000 + section;
        out.push_str(&format!(
            "## Step {section}\n\nThe {} with **{}** and `inline {k}` code.\n\n\
             - first {}\n- second, *emphasised* {k}\n- [x] third, done\n\n\
             ```rust\nfn step_{k}(x: u64) -> u64 {{\n    let y = x.wrapping_mul({k}) + 1;\n    \
             y.rotate_left(3) // {}\n}}\n```\n\n\
             | key | value |\n|-----|-------|\n| a{k} | {} |\n\n> {}\n\n",
            sentence(k, 24),
            sentence(k + 1, 2),
            sentence(k + 2, 6),
            sentence(k + 3, 4),
            sentence(k + 4, 3),
            sentence(k + 5, 12),
        ));
        section += 1;
    }
    out.push_str(&format!("End of answer {n}."));
    out
}
