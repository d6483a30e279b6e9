//! The SQL of batched writes (`batch.rs`): the connection's job table, the set-based
//! statements of a batch, and each kind's statement for a job alone.

use crate::search_index::{batch_full_sql, index_pending_sql};

/// The `TEMP` table of the write connection that batches use (created when it opens).
/// `base` is a step's conversation's `last_seq` before the step, plus the rows of the
/// same conversation's earlier steps in the batch.
pub(crate) const BATCH_TABLES: &str = "\
    CREATE TEMP TABLE IF NOT EXISTS write_jobs (k INTEGER PRIMARY KEY, kind TEXT NOT NULL, \
      doc BLOB NOT NULL, subject TEXT, call TEXT, base INTEGER); \
    CREATE INDEX IF NOT EXISTS temp.write_jobs_by_key ON write_jobs (subject, call);";

/// The start of a batch: its parameter, ?1, is a JSON array of `{kind, doc}`. Each
/// step's `base` counts the rows of the same conversation's earlier steps in the
/// batch.
macro_rules! begin_jobs_sql {
    () => {
        "BEGIN IMMEDIATE; DELETE FROM temp.write_jobs; \
         INSERT INTO temp.write_jobs (k, kind, doc, subject, call) \
           SELECT e.key, e.value ->> 'kind', jsonb(e.value -> 'doc'), \
             e.value -> 'doc' ->> 'subject', e.value -> 'doc' ->> 'call_id' \
           FROM json_each(?1) AS e; \
         WITH n AS (SELECT k, doc ->> 'conversation' AS conv, \
               (doc ->> 'reasoning' IS NOT NULL) + (doc ->> 'message' IS NOT NULL) \
                 + json_array_length(doc, '$.calls') AS cnt \
               FROM temp.write_jobs WHERE kind = 'step'), \
             b AS (SELECT k, conv, SUM(cnt) OVER (PARTITION BY conv ORDER BY k \
               ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS before FROM n) \
             UPDATE temp.write_jobs SET base = \
               (SELECT c.last_seq FROM conversations AS c WHERE c.id = b.conv) \
               + COALESCE(b.before, 0) \
             FROM b WHERE write_jobs.k = b.k; "
    };
}

/// The steps of a batch. The write connection's `TEMP` triggers keep `last_seq` at the
/// highest `seq` inserted; the `seq`s themselves come from `base`: the reasoning, the
/// message and the calls of a step take consecutive ones in that order. A step that
/// ends its turn also indexes the pending search rows when they are a full batch
/// (`search_index.rs`).
macro_rules! steps_sql {
    () => {
        concat!(
            "INSERT INTO think_blocks (id, conversation_id, turn_id, seq, content, created_at) \
               SELECT doc ->> 'think_id', doc ->> 'conversation', doc ->> 'turn', base + 1, \
                 doc ->> 'reasoning', doc ->> 'at' \
               FROM temp.write_jobs \
               WHERE kind = 'step' AND base IS NOT NULL AND doc ->> 'reasoning' IS NOT NULL \
               ORDER BY k \
               RETURNING 'think' AS kind, seq, id; \
             INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, \
               token_count, created_at, is_edited) \
               SELECT doc ->> 'message_id', doc ->> 'conversation', doc ->> 'turn', \
                 base + 1 + (doc ->> 'reasoning' IS NOT NULL), 'assistant', \
                 doc ->> 'message', doc ->> 'message_tokens', doc ->> 'at', 0 \
               FROM temp.write_jobs \
               WHERE kind = 'step' AND base IS NOT NULL AND doc ->> 'message' IS NOT NULL \
               ORDER BY k \
               RETURNING 'message' AS kind, seq, id; \
             INSERT INTO tool_calls (id, conversation_id, turn_id, seq, call_id, tool_name, \
               arguments, status, token_count, started_at) \
               SELECT e.value ->> 'id', j.doc ->> 'conversation', j.doc ->> 'turn', \
                 j.base + 1 + (j.doc ->> 'reasoning' IS NOT NULL) \
                   + (j.doc ->> 'message' IS NOT NULL) + e.key, \
                 e.value ->> 'call_id', e.value ->> 'name', e.value ->> 'arguments', \
                 'running', e.value ->> 'tokens', j.doc ->> 'at' \
               FROM temp.write_jobs AS j, json_each(j.doc, '$.calls') AS e \
               WHERE j.kind = 'step' AND j.base IS NOT NULL ORDER BY j.k, e.key \
               RETURNING 'call' AS kind, seq, id; \
             UPDATE turns SET (status, error, completed_at) = \
                 (SELECT j.doc ->> 'status', j.doc ->> 'error', j.doc ->> 'at' \
                  FROM temp.write_jobs AS j \
                  WHERE j.subject = turns.id AND j.kind = 'step' AND j.doc ->> 'status' IS NOT NULL), \
               owner_pid = NULL, owner_host = NULL, owner_started_at = NULL, heartbeat_at = NULL \
               WHERE id IN (SELECT subject FROM temp.write_jobs \
                 WHERE kind = 'step' AND doc ->> 'status' IS NOT NULL) \
               RETURNING 'turn' AS kind, id, conversation_id, seq, thinking_mode, status, \
               error, created_at, completed_at, owner_pid, owner_host, owner_started_at, \
               heartbeat_at, undone_at; ",
            index_pending_sql!(concat!(
                "EXISTS (SELECT 1 FROM temp.write_jobs \
                   WHERE kind = 'step' AND doc ->> 'status' IS NOT NULL) AND ",
                batch_full_sql!()
            ))
        )
    };
}

/// Tool results from `$jobs`, a relation of the results' `subject` (turn id), `call`
/// and `doc`.
/// (Driven by the jobs: each finds its call through the `(turn_id, call_id)` index.)
macro_rules! results_sql {
    ($jobs:expr) => {
        concat!(
            "UPDATE tool_calls SET (result, status, token_count, completed_at) = \
               (SELECT j.doc ->> 'result', j.doc ->> 'status', j.doc ->> 'tokens', j.doc ->> 'at' \
                FROM ",
            $jobs,
            " AS j WHERE j.subject = tool_calls.turn_id AND j.call = tool_calls.call_id) \
             WHERE (turn_id, call_id) IN (SELECT j.subject, j.call FROM ",
            $jobs,
            " AS j) \
             RETURNING 'result' AS kind, id, conversation_id, turn_id, seq, call_id, \
             tool_name, arguments, result, status, token_count, started_at, completed_at; "
        )
    };
}

/// New conversations from `$jobs`, a relation of `subject` and `doc`.
macro_rules! creates_sql {
    ($jobs:expr) => {
        concat!(
            "INSERT INTO conversations (id, user_name, title, created_at, updated_at) \
               SELECT j.subject, j.doc ->> 'user', j.doc ->> 'title', j.doc ->> 'at', \
                 j.doc ->> 'at' FROM ",
            $jobs,
            " AS j RETURNING 'conversation' AS kind, id; "
        )
    };
}

/// New titles from `$jobs`, a relation of `subject` and `doc`.
macro_rules! renames_sql {
    ($jobs:expr) => {
        concat!(
            "UPDATE conversations SET (title, updated_at) = \
               (SELECT j.doc ->> 'title', j.doc ->> 'at' FROM ",
            $jobs,
            " AS j WHERE j.subject = conversations.id) \
             WHERE id IN (SELECT j.subject FROM ",
            $jobs,
            " AS j) RETURNING 'conversation' AS kind, id; "
        )
    };
}

/// Turn starts with their user messages from the batch's `start` jobs (each of
/// another conversation: their key). A conversation's running turn comes back tagged
/// `running`, and then its job inserts nothing; see `turns/start.rs` for the document
/// and [`START_ALONE`] for a start alone. The turn and its message take consecutive
/// `seq`s as the `TEMP` triggers advance `last_seq`. A first turn whose document has a
/// `title` gives it to its conversation while that is still `untitled` (tagged
/// `titled`).
macro_rules! starts_sql {
    () => {
        "SELECT 'running' AS kind, t.id, t.conversation_id, t.seq, t.thinking_mode, t.status, \
           t.error, t.created_at, t.completed_at, t.owner_pid, t.owner_host, \
           t.owner_started_at, t.heartbeat_at, t.undone_at \
           FROM temp.write_jobs AS j JOIN turns AS t ON t.id = \
             (SELECT id FROM turns WHERE conversation_id = j.subject AND status = 'running' \
              ORDER BY seq LIMIT 1) \
           WHERE j.kind = 'start'; \
         INSERT INTO turns (id, conversation_id, seq, thinking_mode, status, created_at, \
           owner_pid, owner_host, owner_started_at, heartbeat_at) \
           SELECT j.doc ->> 'turn', c.id, c.last_seq + 1, j.doc ->> 'thinking', 'running', \
             j.doc ->> 'at', j.doc ->> 'pid', j.doc ->> 'host', j.doc ->> 'started_at', \
             j.doc ->> 'at' \
           FROM temp.write_jobs AS j JOIN conversations AS c ON c.id = j.subject \
           WHERE j.kind = 'start' AND NOT EXISTS \
             (SELECT 1 FROM turns WHERE conversation_id = c.id AND status = 'running') \
           ORDER BY j.k \
           RETURNING 'turn' AS kind, seq, id; \
         INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, \
           created_at, is_edited) \
           SELECT j.doc ->> 'message_id', c.id, j.doc ->> 'turn', c.last_seq + 1, 'user', \
             j.doc ->> 'text', j.doc ->> 'tokens', j.doc ->> 'at', 0 \
           FROM temp.write_jobs AS j JOIN conversations AS c ON c.id = j.subject \
           WHERE j.kind = 'start' AND EXISTS (SELECT 1 FROM turns WHERE id = j.doc ->> 'turn') \
           ORDER BY j.k \
           RETURNING 'message' AS kind, seq, id; \
         UPDATE conversations SET (title, updated_at) = \
             (SELECT j.doc ->> 'title', j.doc ->> 'at' FROM temp.write_jobs AS j \
              WHERE j.kind = 'start' AND j.subject = conversations.id) \
           WHERE id IN (SELECT j.subject FROM temp.write_jobs AS j \
               JOIN turns AS t ON t.id = j.doc ->> 'turn' AND t.seq = 1 \
               WHERE j.kind = 'start' AND j.doc ->> 'title' IS NOT NULL \
                 AND j.doc ->> 'untitled' = \
                   (SELECT c.title FROM conversations AS c WHERE c.id = j.subject)) \
           RETURNING 'titled' AS kind, id; "
    };
}

/// The jobs of one kind in a batch, as a relation of `subject`, `call` and `doc`.
macro_rules! batch_jobs {
    ($kind:literal) => {
        concat!(
            "(SELECT subject, call, doc FROM temp.write_jobs WHERE kind = '",
            $kind,
            "' ORDER BY k)"
        )
    };
}

/// A job alone, as a relation of `subject`, `call` and `doc`: ?1 is its document.
macro_rules! alone_job {
    () => {
        "(SELECT ?1 ->> 'subject' AS subject, ?1 ->> 'call_id' AS call, jsonb(?1) AS doc)"
    };
}

/// The statements of a batch's jobs other than steps.
macro_rules! other_jobs_sql {
    () => {
        concat!(
            creates_sql!(batch_jobs!("create")),
            results_sql!(batch_jobs!("result")),
            renames_sql!(batch_jobs!("rename")),
            starts_sql!()
        )
    };
}

/// A batch with steps.
pub(super) const WITH_STEPS: &str =
    concat!(begin_jobs_sql!(), steps_sql!(), other_jobs_sql!(), "COMMIT");
/// A batch without steps.
pub(super) const WITHOUT_STEPS: &str = concat!(begin_jobs_sql!(), other_jobs_sql!(), "COMMIT");
/// A step alone: ?1 is its document. The same rows as `steps_sql!` writes, without
/// the job table: each statement takes `last_seq + 1` as the `TEMP` triggers advance
/// it (the calls' base is read once, `MATERIALIZED`). Two fewer statements and no
/// copy of the document, which is most of what a lone step costs beyond SQLite's own
/// work; the batch tests and the single-write tests hold both forms to the same rows.
pub(super) const STEP_ALONE: &str = concat!(
    "BEGIN IMMEDIATE; \
    INSERT INTO think_blocks (id, conversation_id, turn_id, seq, content, created_at) \
      SELECT ?1 ->> 'think_id', id, ?1 ->> 'turn', last_seq + 1, ?1 ->> 'reasoning', \
        ?1 ->> 'at' \
      FROM conversations WHERE id = ?1 ->> 'conversation' AND ?1 ->> 'reasoning' IS NOT NULL \
      RETURNING 'think' AS kind, seq; \
    INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, \
      created_at, is_edited) \
      SELECT ?1 ->> 'message_id', id, ?1 ->> 'turn', last_seq + 1, 'assistant', \
        ?1 ->> 'message', ?1 ->> 'message_tokens', ?1 ->> 'at', 0 \
      FROM conversations WHERE id = ?1 ->> 'conversation' AND ?1 ->> 'message' IS NOT NULL \
      RETURNING 'message' AS kind, seq; \
    WITH base AS MATERIALIZED \
      (SELECT id, last_seq FROM conversations WHERE id = ?1 ->> 'conversation') \
    INSERT INTO tool_calls (id, conversation_id, turn_id, seq, call_id, tool_name, arguments, \
      status, token_count, started_at) \
      SELECT c.value ->> 'id', base.id, ?1 ->> 'turn', base.last_seq + 1 + c.key, \
        c.value ->> 'call_id', c.value ->> 'name', c.value ->> 'arguments', 'running', \
        c.value ->> 'tokens', ?1 ->> 'at' \
      FROM base, json_each(?1, '$.calls') AS c ORDER BY c.key \
      RETURNING 'call' AS kind, seq, id; \
    UPDATE turns SET status = ?1 ->> 'status', error = ?1 ->> 'error', \
      completed_at = ?1 ->> 'at', owner_pid = NULL, owner_host = NULL, \
      owner_started_at = NULL, heartbeat_at = NULL \
      WHERE id = ?1 ->> 'turn' AND ?1 ->> 'status' IS NOT NULL \
      RETURNING 'turn' AS kind, id, conversation_id, seq, thinking_mode, status, error, \
      created_at, completed_at, owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at; ",
    index_pending_sql!(concat!(
        "?1 ->> 'status' IS NOT NULL AND ",
        batch_full_sql!()
    )),
    "COMMIT"
);
/// A tool result alone (one statement): ?1 is its document.
pub(super) const RESULT_ALONE: &str = results_sql!(alone_job!());
/// A new conversation alone (one statement): ?1 is its document.
pub(super) const CREATE_ALONE: &str = creates_sql!(alone_job!());
/// A new title alone (one statement): ?1 is its document.
pub(super) const RENAME_ALONE: &str = renames_sql!(alone_job!());
/// A turn start alone (`turns/start.rs`). Its one parameter, ?1, is a JSON object:
/// `subject` (the conversation), `turn`, `thinking` (0 or 1), `at`, `pid`, `host`,
/// `started_at`, `message_id`, `text`, `tokens`, and
/// `title` and `untitled` (null, or the title a first turn gives a conversation whose
/// title is still `untitled`; it comes back tagged `titled`) (one parameter: see
/// `RECORD_STEP` in `steps.rs` for why).
///
/// The conversation's running turn, if any, comes back tagged `running`, and then the
/// inserts insert nothing (their `NOT EXISTS` / `EXISTS` conditions), so the
/// transaction commits no change. The write connection's `TEMP` triggers advance
/// `last_seq` after each insert: the turn and its message take consecutive `seq`s.
pub(super) const START_ALONE: &str = "\
    BEGIN IMMEDIATE; \
    SELECT 'running' AS kind, id, conversation_id, seq, thinking_mode, status, error, \
      created_at, completed_at, owner_pid, owner_host, owner_started_at, heartbeat_at, undone_at \
      FROM turns WHERE conversation_id = ?1 ->> 'subject' AND status = 'running' \
      ORDER BY seq LIMIT 1; \
    INSERT INTO turns (id, conversation_id, seq, thinking_mode, status, created_at, \
      owner_pid, owner_host, owner_started_at, heartbeat_at) \
      SELECT ?1 ->> 'turn', id, last_seq + 1, ?1 ->> 'thinking', 'running', ?1 ->> 'at', \
        ?1 ->> 'pid', ?1 ->> 'host', ?1 ->> 'started_at', ?1 ->> 'at' \
      FROM conversations WHERE id = ?1 ->> 'subject' AND NOT EXISTS \
        (SELECT 1 FROM turns WHERE conversation_id = ?1 ->> 'subject' \
         AND status = 'running') \
      RETURNING 'turn' AS kind, seq; \
    INSERT INTO messages (id, conversation_id, turn_id, seq, role, content, token_count, \
      created_at, is_edited) \
      SELECT ?1 ->> 'message_id', id, ?1 ->> 'turn', last_seq + 1, 'user', ?1 ->> 'text', \
        ?1 ->> 'tokens', ?1 ->> 'at', 0 \
      FROM conversations WHERE id = ?1 ->> 'subject' \
        AND EXISTS (SELECT 1 FROM turns WHERE id = ?1 ->> 'turn') \
      RETURNING 'message' AS kind, seq; \
    UPDATE conversations SET title = ?1 ->> 'title', updated_at = ?1 ->> 'at' \
      WHERE id = ?1 ->> 'subject' AND ?1 ->> 'title' IS NOT NULL \
        AND title = ?1 ->> 'untitled' \
        AND EXISTS (SELECT 1 FROM turns WHERE id = ?1 ->> 'turn' AND seq = 1) \
      RETURNING 'titled' AS kind, id; \
    COMMIT";
