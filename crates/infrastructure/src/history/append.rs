//! The statements that append a row with the conversation's next `seq`.
//!
//! On the write connection an append is one statement, `INSERT … SELECT last_seq + 1
//! … RETURNING seq`: SQLite runs a lone statement as its own transaction (taking the
//! write lock when it starts, so writers queue on the busy timeout), and the write
//! connection's `TEMP` triggers (`tx/writer.rs`, [`SEQ_TRIGGERS`]) advance the
//! conversation's `last_seq` and `updated_at` in that same transaction. One statement
//! is one round trip to sqlx's SQLite thread and one result, where `BEGIN`, `UPDATE`,
//! `INSERT`, `COMMIT` cost four results, each a thread wake-up.
//!
//! Inside a multi-statement transaction ([`INSERT_MESSAGE`]) the `UPDATE` stays
//! explicit, so it is right on any connection.

use smallebot_core::RepositoryError;
use smallebot_core::entities::{NewMessage, Seq};
use smallebot_core::ids::{ConversationId, MessageId};
use smallebot_core::repository::RepoResult;
use sqlx::Sqlite;
use sqlx::query::Query;
use sqlx::sqlite::{SqliteArguments, SqliteRow};

/// Connection-local triggers of the write connection: a row (or turn) inserted with a `seq`
/// advances its conversation's `last_seq` (never backwards) and `updated_at`. `TEMP`:
/// they are not part of the database file, so other connections, processes and builds
/// are unaffected. Should an append ever run without them, `last_seq` would not move
/// and the next append would fail on `UNIQUE (conversation_id, seq)` — loudly, never
/// silently.
pub(crate) const SEQ_TRIGGERS: &str = "\
    CREATE TEMP TRIGGER IF NOT EXISTS seq_of_message AFTER INSERT ON main.messages BEGIN \
      UPDATE conversations SET last_seq = max(last_seq, new.seq), \
        updated_at = new.created_at WHERE id = new.conversation_id; \
    END; \
    CREATE TEMP TRIGGER IF NOT EXISTS seq_of_tool_call AFTER INSERT ON main.tool_calls BEGIN \
      UPDATE conversations SET last_seq = max(last_seq, new.seq), \
        updated_at = new.started_at WHERE id = new.conversation_id; \
    END; \
    CREATE TEMP TRIGGER IF NOT EXISTS seq_of_think_block AFTER INSERT ON main.think_blocks BEGIN \
      UPDATE conversations SET last_seq = max(last_seq, new.seq), \
        updated_at = new.created_at WHERE id = new.conversation_id; \
    END; \
    CREATE TEMP TRIGGER IF NOT EXISTS seq_of_turn AFTER INSERT ON main.turns BEGIN \
      UPDATE conversations SET last_seq = max(last_seq, new.seq), \
        updated_at = new.created_at WHERE id = new.conversation_id; \
    END;";

/// Inserts a message with `seq` = the given expression: ?1 now, ?2 conversation, ?3 id,
/// ?4 turn, ?5 role, ?6 content, ?7 token count, ?8 edited. Returns the `seq` (no row:
/// no such conversation). Bind with [`message_insert`].
macro_rules! insert_message_sql {
    ($seq:literal) => {
        concat!(
            "INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, \
             token_count, created_at, is_edited) \
             SELECT ?3, id, ?4, ",
            $seq,
            ", ?5, ?6, ?7, ?1, ?8 FROM conversations WHERE id = ?2 RETURNING seq"
        )
    };
}

/// Appends a message, alone, on the write connection.
pub(super) const APPEND_MESSAGE: &str = insert_message_sql!("last_seq + 1");

/// Allocates the next `seq` and inserts a message with it, inside a write transaction.
pub(crate) const INSERT_MESSAGE: &str = concat!(
    "UPDATE conversations SET last_seq = last_seq + 1, updated_at = ?1 WHERE id = ?2; ",
    insert_message_sql!("last_seq")
);

/// A message insert ([`APPEND_MESSAGE`] or [`INSERT_MESSAGE`]) with its arguments bound.
pub(crate) fn message_insert<'q>(
    sql: &'static str,
    at_text: String,
    id: MessageId,
    message: &'q NewMessage,
    is_edited: bool,
) -> Query<'q, Sqlite, SqliteArguments> {
    sqlx::query(sql)
        .bind(at_text)
        .bind(message.conversation_id.to_string())
        .bind(id.to_string())
        .bind(message.turn_id.to_string())
        .bind(message.role.as_str())
        .bind(message.content.as_str())
        .bind(message.token_count)
        .bind(i64::from(is_edited))
}

/// The `seq` an insert returned, or not-found when the conversation is missing.
pub(crate) fn allocated_seq(
    rows: &[SqliteRow],
    conversation_id: ConversationId,
) -> RepoResult<Seq> {
    use sqlx::Row;
    match rows.first() {
        Some(row) => row
            .try_get::<i64, _>(0)
            .map_err(|e| RepositoryError::Corrupt(format!("seq: {e}"))),
        None => Err(RepositoryError::not_found("conversation", conversation_id)),
    }
}
