//! Group commit: the frequent writes of running turns — a turn start, a model step, a
//! tool result, a new conversation, a rename — run at once when the write connection is free; when
//! it is not, they queue up, and one task runs everything queued in one transaction.
//!
//! Every commit writes each page it changed to the WAL, and every wait for the write
//! lock costs a place in the async runtime's queue; with hundreds of turns running, a
//! batch pays both once. The statements run on the direct connection (`direct.rs`),
//! on the calling thread.
//!
//! How: each write is a [`JobKind`], one JSON document and the keys of the rows it
//! returns. The batch's query (`batch_sql.rs`) copies the documents into the connection's `TEMP` table
//! `write_jobs` and then runs one set of statements over all of them (a dozen
//! statements for any number of jobs: sqlx's cost is per statement). Rows come back
//! tagged, and each goes to the job whose key it carries.
//!
//! Should a statement fail (a conflict in one job), the batch is rolled back and its
//! jobs run again one by one, so only the failing job sees the error. A job's result
//! is handed over only after its transaction committed. Two jobs with the same key
//! (two ends of one turn, two results of one call) never share a batch. A job that
//! finds nothing queued and the connection free runs at once, alone.

use std::collections::{HashMap, HashSet, VecDeque};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::sync::oneshot;

use super::batch_sql::{
    CREATE_ALONE, RENAME_ALONE, RESULT_ALONE, START_ALONE, STEP_ALONE, WITH_STEPS, WITHOUT_STEPS,
};
use super::direct::{DirectError, DirectRow, run_script};
use super::writer::{WriteConnection, WriterGuard};
use crate::rows::Columns;

/// The most jobs in one transaction.
pub(crate) const MAX_BATCH: usize = 64;

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
    /// A turn start with its user message (`turns/start.rs`, which describes the
    /// document; `subject` is the conversation). Its rows' keys: `conversation:<id>`
    /// for the conversation's running turn (then nothing was started) and for its new
    /// title (a first turn's, when the document has one), `turn:<id>` and the
    /// message's id.
    StartTurn,
}

impl JobKind {
    fn as_str(self) -> &'static str {
        match self {
            Self::Step => "step",
            Self::ToolResult => "result",
            Self::CreateConversation => "create",
            Self::RenameConversation => "rename",
            Self::StartTurn => "start",
        }
    }
}

/// The rows a job returned, or the error of its statements.
pub(crate) type JobResult = Result<Vec<DirectRow>, DirectError>;

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
        if idle && let Some(writer) = self.try_lock().await {
            return run_alone(&writer, job).await;
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
            DirectError::Unavailable("the write queue stopped before running this write".into())
        })?
    }
}

fn poisoned() -> DirectError {
    DirectError::Unavailable("the write queue's lock is poisoned".into())
}

fn protocol(message: &str) -> DirectError {
    DirectError::Unavailable(message.to_owned())
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
        let writer = match writer {
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
            run_chunk(conn.batch(), &writer, chunk).await;
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
async fn run_chunk(queue: &BatchQueue, writer: &WriterGuard, chunk: Vec<Queued>) {
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
                // The script rolled its transaction back.
                tracing::debug!(%err, jobs = chunk.len(), "a batch failed; running its jobs one by one");
            }
        }
    }
    for queued in chunk {
        let Queued { job, reply } = queued;
        let _ = reply.send(run_alone(writer, job).await);
    }
}

/// Runs one job in its own transaction, in one round trip.
async fn run_alone(writer: &WriterGuard, job: Job) -> JobResult {
    let sql = match job.kind {
        JobKind::Step => STEP_ALONE,
        JobKind::ToolResult => RESULT_ALONE,
        JobKind::CreateConversation => CREATE_ALONE,
        JobKind::RenameConversation => RENAME_ALONE,
        JobKind::StartTurn => START_ALONE,
    };
    let doc = job.doc;
    writer
        .direct(move |conn| run_script(conn, sql, &[&doc]))
        .await
}

/// Runs `jobs` in one transaction in one round trip; the rows of each job, in order.
async fn run_together(
    writer: &WriterGuard,
    jobs: &[&Job],
) -> Result<Vec<Vec<DirectRow>>, DirectError> {
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
        .direct(move |conn| run_script(conn, sql, &[&docs]))
        .await?;
    let mut owner = HashMap::new();
    for (i, job) in jobs.iter().enumerate() {
        for key in &job.keys {
            owner.insert(key.as_str(), i);
        }
    }
    let mut per_job: Vec<Vec<DirectRow>> = jobs.iter().map(|_| Vec::new()).collect();
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
fn row_key(row: &DirectRow) -> Result<String, DirectError> {
    let text = |column: &str| -> Result<String, DirectError> {
        row.opt_text(column)
            .ok()
            .flatten()
            .ok_or_else(|| protocol(&format!("a batch returned a row without {column}")))
    };
    Ok(match text("kind")?.as_str() {
        "turn" => format!("turn:{}", text("id")?),
        "conversation" => format!("conversation:{}", text("id")?),
        "running" => format!("conversation:{}", text("conversation_id")?),
        "titled" => format!("conversation:{}", text("id")?),
        "result" => format!("result:{}/{}", text("turn_id")?, text("call_id")?),
        _ => text("id")?,
    })
}

#[cfg(test)]
#[path = "batch_tests.rs"]
mod tests;
