//! Group commit: the frequent writes of running turns — a model step, a tool result —
//! queue up, and one task runs everything queued in one transaction, in one round
//! trip to sqlx's SQLite thread.
//!
//! Every round trip costs thread wake-ups and a place in the async runtime's queue,
//! and every commit writes each page it changed to the WAL; with hundreds of turns
//! running, writes one at a time queued for hundreds of milliseconds behind each
//! other. A batch pays both once.
//!
//! How: each write is a [`JobKind`], one JSON document and the keys of the rows it
//! returns. The batch's query copies the documents into the connection's `TEMP` table
//! `write_jobs` and then runs one set of statements over all of them (a dozen
//! statements for any number of jobs: sqlx's cost is per statement). Rows come back
//! tagged, and each goes to the job whose key it carries.
//!
//! Should a statement fail (a conflict in one job), the batch is rolled back and its
//! jobs run again one by one, so only the failing job sees the error. A job's result
//! is handed over only after its transaction committed. Two jobs with the same key
//! (two ends of one turn, two results of one call) never share a batch.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use sqlx::Row;
use sqlx::sqlite::SqliteRow;
use tokio::sync::oneshot;

use super::writer::{WriteConnection, WriterGuard};
use crate::search_index::{batch_full_sql, index_pending_sql};

/// The most jobs in one transaction.
pub(crate) const MAX_BATCH: usize = 64;

/// The `TEMP` table of the write connection that batches use (created when it opens).
/// `base` is a step's conversation's `last_seq` before the step, plus the rows of the
/// same conversation's earlier steps in the batch.
pub(crate) const BATCH_TABLES: &str = "\
    CREATE TEMP TABLE IF NOT EXISTS write_jobs (k INTEGER PRIMARY KEY, kind TEXT NOT NULL, \
      doc BLOB NOT NULL, subject TEXT, call TEXT, base INTEGER); \
    CREATE INDEX IF NOT EXISTS temp.write_jobs_by_key ON write_jobs (subject, call);";

/// What a queued write does. Every document has a `subject`: the id of the turn or
/// conversation the job is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum JobKind {
    /// A model step (`steps.rs`): its document is described there. Its rows' keys are
    /// the ids of its think block, message and calls, and `turn:<id>` when it ends
    /// the turn.
    Step,
    /// A tool call's result (`history.rs`): `subject` (the turn), `call_id`, `result`,
    /// `status`, `tokens`, `at`. Its row's key is `result:<turn id>/<call id>`.
    ToolResult,
    /// A new conversation (`conversations.rs`): `subject` (its id), `user`, `title`,
    /// `at`. Its row's key is `conversation:<id>`.
    CreateConversation,
    /// A conversation's new title (`conversations.rs`): `subject` (its id), `title`,
    /// `at`. Its row's key is `conversation:<id>`.
    RenameConversation,
}

impl JobKind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Step => "step",
            Self::ToolResult => "result",
            Self::CreateConversation => "create",
            Self::RenameConversation => "rename",
        }
    }
}

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

/// The start of a step alone: its parameter, ?1, is the step's document.
macro_rules! begin_step_sql {
    () => {
        "BEGIN IMMEDIATE; DELETE FROM temp.write_jobs; \
         INSERT INTO temp.write_jobs (k, kind, doc, subject, base) \
           SELECT 0, 'step', jsonb(?1), ?1 ->> 'subject', \
             (SELECT last_seq FROM conversations WHERE id = ?1 ->> 'conversation'); "
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
            "             INSERT INTO think_blocks (id, conversation_id, turn_id, seq, content, created_at) \
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
            renames_sql!(batch_jobs!("rename"))
        )
    };
}

/// A batch with steps.
const WITH_STEPS: &str = concat!(begin_jobs_sql!(), steps_sql!(), other_jobs_sql!(), "COMMIT");
/// A batch without steps.
const WITHOUT_STEPS: &str = concat!(begin_jobs_sql!(), other_jobs_sql!(), "COMMIT");
/// A step alone: ?1 is its document.
const STEP_ALONE: &str = concat!(begin_step_sql!(), steps_sql!(), "COMMIT");
/// A tool result alone (one statement): ?1 is its document.
const RESULT_ALONE: &str = results_sql!(alone_job!());
/// A new conversation alone (one statement): ?1 is its document.
const CREATE_ALONE: &str = creates_sql!(alone_job!());
/// A new title alone (one statement): ?1 is its document.
const RENAME_ALONE: &str = renames_sql!(alone_job!());

/// The rows a job returned, or the error of its statements.
pub(crate) type JobResult = Result<Vec<SqliteRow>, sqlx::Error>;

/// One write.
pub(crate) struct Job {
    /// What it does.
    pub(crate) kind: JobKind,
    /// Its document (JSON).
    pub(crate) doc: String,
    /// The keys of the rows it returns (see [`JobKind`]).
    pub(crate) keys: Vec<String>,
}

/// A queued job and where its result goes.
struct Queued {
    job: Job,
    reply: oneshot::Sender<JobResult>,
}

/// The jobs waiting for the write connection, and whether a task is draining them.
#[derive(Default)]
struct Pending {
    jobs: VecDeque<Queued>,
    draining: bool,
}

/// The queue of batched writes of one write connection.
#[derive(Default)]
pub(crate) struct BatchQueue {
    pending: Mutex<Pending>,
    /// How many jobs committed in a transaction shared with others.
    together: AtomicUsize,
}

impl BatchQueue {
    /// How many jobs committed in a transaction shared with others so far.
    #[cfg(test)]
    pub(crate) fn jobs_run_together(&self) -> usize {
        self.together.load(Ordering::Relaxed)
    }
}

impl std::fmt::Debug for BatchQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BatchQueue").finish_non_exhaustive()
    }
}

impl WriteConnection {
    /// Runs `job` and returns its rows once its transaction committed: at once when
    /// nothing else writes, else in the next batch.
    pub(crate) async fn run_batched(&self, job: Job) -> JobResult {
        let idle = self
            .batch()
            .pending
            .lock()
            .map_err(|_| poisoned())?
            .jobs
            .is_empty();
        if idle && let Some(mut writer) = self.try_lock().await {
            return run_alone(&mut writer, &job).await;
        }
        let (reply, answer) = oneshot::channel();
        let start_drainer = {
            let mut pending = self.batch().pending.lock().map_err(|_| poisoned())?;
            pending.jobs.push_back(Queued { job, reply });
            !std::mem::replace(&mut pending.draining, true)
        };
        if start_drainer {
            // A task of its own: a caller dropping its future never drops other
            // callers' jobs with it.
            tokio::spawn(drain(self.clone()));
        }
        answer.await.map_err(|_| {
            sqlx::Error::Protocol("the write queue stopped before running this write".into())
        })?
    }
}

fn poisoned() -> sqlx::Error {
    sqlx::Error::Protocol("the write queue's lock is poisoned".into())
}

fn protocol(message: &str) -> sqlx::Error {
    sqlx::Error::Protocol(message.to_owned())
}

/// Runs queued jobs until none are left: takes the write connection, runs what is
/// queued in batches, lets other writers in, repeats.
async fn drain(conn: WriteConnection) {
    loop {
        let writer = conn.lock().await;
        let jobs: Vec<Queued> = {
            let Ok(mut pending) = conn.batch().pending.lock() else {
                return;
            };
            if pending.jobs.is_empty() {
                pending.draining = false;
                return;
            }
            pending.jobs.drain(..).collect()
        };
        let mut writer = match writer {
            Ok(writer) => writer,
            Err(err) => {
                let message = err.to_string();
                for queued in jobs {
                    let _ = queued.reply.send(Err(protocol(&message)));
                }
                continue;
            }
        };
        let mut rest = jobs;
        while !rest.is_empty() {
            let (chunk, later) = next_chunk(rest);
            rest = later;
            run_chunk(conn.batch(), &mut writer, chunk).await;
        }
    }
}

/// Up to [`MAX_BATCH`] jobs whose keys differ, in queue order, and the rest.
fn next_chunk(jobs: Vec<Queued>) -> (Vec<Queued>, Vec<Queued>) {
    let mut seen = HashSet::new();
    let mut chunk = Vec::new();
    let mut later = Vec::new();
    for queued in jobs {
        let fits = chunk.len() < MAX_BATCH
            && later.is_empty()
            && queued.job.keys.iter().all(|k| !seen.contains(k));
        if fits {
            seen.extend(queued.job.keys.iter().cloned());
            chunk.push(queued);
        } else {
            later.push(queued);
        }
    }
    (chunk, later)
}

/// Runs the jobs in one transaction; on an error, rolls it back and runs them one by
/// one.
async fn run_chunk(queue: &BatchQueue, writer: &mut WriterGuard, chunk: Vec<Queued>) {
    if chunk.len() > 1 {
        let jobs: Vec<&Job> = chunk.iter().map(|q| &q.job).collect();
        match run_together(writer, &jobs).await {
            Ok(results) => {
                queue.together.fetch_add(results.len(), Ordering::Relaxed);
                for (queued, rows) in chunk.into_iter().zip(results) {
                    let _ = queued.reply.send(Ok(rows));
                }
                return;
            }
            Err(err) => {
                tracing::debug!(%err, jobs = chunk.len(), "a batch failed; running its jobs one by one");
                if let Err(err) = writer.roll_back().await {
                    let message = err.to_string();
                    for queued in chunk {
                        let _ = queued.reply.send(Err(protocol(&message)));
                    }
                    return;
                }
            }
        }
    }
    for queued in chunk {
        let result = run_alone(writer, &queued.job).await;
        let _ = queued.reply.send(result);
    }
}

/// Runs one job in its own transaction, in one round trip.
async fn run_alone(writer: &mut WriterGuard, job: &Job) -> JobResult {
    let sql = match job.kind {
        JobKind::Step => STEP_ALONE,
        JobKind::ToolResult => RESULT_ALONE,
        JobKind::CreateConversation => CREATE_ALONE,
        JobKind::RenameConversation => RENAME_ALONE,
    };
    writer
        .transaction_in_one_trip(sqlx::query(sql).bind(job.doc.as_str()))
        .await
}

/// Runs `jobs` in one transaction in one round trip; the rows of each job, in order.
async fn run_together(
    writer: &mut WriterGuard,
    jobs: &[&Job],
) -> Result<Vec<Vec<SqliteRow>>, sqlx::Error> {
    let sql = if jobs.iter().any(|j| j.kind == JobKind::Step) {
        WITH_STEPS
    } else {
        WITHOUT_STEPS
    };
    let mut docs = String::with_capacity(jobs.iter().map(|j| j.doc.len() + 32).sum());
    docs.push('[');
    for (i, job) in jobs.iter().enumerate() {
        if i > 0 {
            docs.push(',');
        }
        docs.push_str("{\"kind\":\"");
        docs.push_str(job.kind.as_str());
        docs.push_str("\",\"doc\":");
        docs.push_str(&job.doc);
        docs.push('}');
    }
    docs.push(']');
    let rows = writer
        .transaction_in_one_trip(sqlx::query(sql).bind(docs))
        .await?;
    let mut owner = HashMap::new();
    for (i, job) in jobs.iter().enumerate() {
        for key in &job.keys {
            owner.insert(key.as_str(), i);
        }
    }
    let mut per_job: Vec<Vec<SqliteRow>> = jobs.iter().map(|_| Vec::new()).collect();
    for row in rows {
        let key = row_key(&row)?;
        let i = owner
            .get(key.as_str())
            .copied()
            .ok_or_else(|| protocol(&format!("a batch returned a row of no job: {key}")))?;
        if let Some(rows) = per_job.get_mut(i) {
            rows.push(row);
        }
    }
    Ok(per_job)
}

/// The key a returned row carries (see [`JobKind`]).
fn row_key(row: &SqliteRow) -> Result<String, sqlx::Error> {
    let tag: String = row.try_get("kind")?;
    Ok(match tag.as_str() {
        "turn" => format!("turn:{}", row.try_get::<String, _>("id")?),
        "conversation" => format!("conversation:{}", row.try_get::<String, _>("id")?),
        "result" => format!(
            "result:{}/{}",
            row.try_get::<String, _>("turn_id")?,
            row.try_get::<String, _>("call_id")?
        ),
        _ => row.try_get("id")?,
    })
}

/// The queue shared by clones of a write connection.
pub(crate) fn new_queue() -> Arc<BatchQueue> {
    Arc::default()
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
