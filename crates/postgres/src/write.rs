//! The store's one write path: a writer that owns a connection, takes typed [`Job`]s
//! and drains what is queued into as few statements as it can — on the task of
//! whoever finds the connection free, so a write on an idle store costs no hop to
//! another task (`writer.rs`).
//!
//! Every write of the store is sent here: a turn's writes (its start, each model step,
//! each tool result, its end, its lease's heartbeats), the notifications to other
//! processes, and the rarer writes ([`Edit`]: conversations, compression, token counts,
//! the guarded rewrites, users, task lists, relayed messages) — none takes a pooled
//! connection; reads do. A rarer write runs alone, in its queue order, as one
//! transaction when it has several statements; one that fails or is refused is rolled
//! back before the next job (its row and advisory locks are not kept while the writer
//! waits). That saves the pool's work per
//! statement (sqlx checks a connection back in with a second round trip to the
//! server), and under load the jobs queued while a statement runs go out together: the
//! steps of several turns in one statement (`UNNEST` arrays), the tool results of
//! several calls in one `UPDATE`.
//!
//! A job runs to its end even when its caller stops waiting (a cancelled turn never
//! leaves a write half done or a batch without its answers; a drain whose caller
//! stops waiting goes on in a task of its own). A batched statement is one
//! transaction: when it fails, nothing of it is stored and each of its jobs runs again
//! alone, so a failing job fails only itself, with the same error it gets alone. One
//! batch never holds two jobs of the same conversation (steps) or of the same call
//! (results); such a job goes to the next batch, in its order. Batches take several
//! conversations' row locks in one statement; should two processes deadlock on them,
//! PostgreSQL aborts one batch and its jobs run again one by one.
//!
//! Across processes nothing changes: a step's `seq`s still come from the conversation's
//! row (locked by the statement's `UPDATE`), the partial unique index still admits one
//! running turn, and a notification is sent when its statement commits.
//!
//! Every write of a conversation's rows moves the conversation's `version` by one in
//! the same statement or transaction: a turn's start and its steps in their `UPDATE`
//! of the conversation, tool results and a turn's end or interruption beside theirs,
//! every transaction that takes the conversation's lock (`guard::lock_conversation`)
//! or hands out `seq`s (`insert::allocate_seqs`) there. Reads check the rows a store
//! keeps against it (`history/cache.rs`); the writes that add or complete rows bring
//! this store's copy along.

/// Runs `$body` with the writer's connection bound to `$conn`, answering
/// [`RepositoryError::Unavailable`] when there is none; then gives the connection up
/// when the answer says the server is out of reach, or rolls back at once what a
/// failed body left open; sends the answer to `$reply`. (The job modules below use it;
/// `storage` and `lost` are theirs.)
macro_rules! answer_on_link {
    ($link:expr, $reply:ident, $action:expr, |$conn:ident| $body:expr) => {{
        let answer = match $link.get().await {
            Ok($conn) => $body.await,
            Err(err) => Err(storage($action)(err)),
        };
        $link.settle(&answer, lost(&answer)).await;
        let _ = $reply.send(answer);
    }};
}

mod attachments;
mod calls;
mod conversation_edits;
mod conversations;
mod edits;
mod file_changes;
mod grants;
mod guard;
mod hook_runs;
mod insert;
mod link;
mod mcp_credentials;
mod rewrite;
mod steps;
mod tasks;
mod turns;
mod undo;
mod usage;
mod users;
mod writer;

use smallebot_core::entities::{Message, RecordedStep, Turn, TurnStatus};
use smallebot_core::ids::TurnId;
use smallebot_core::repository::RepoResult;
use smallebot_core::time::Timestamp;

use link::{Link, failed};

pub(crate) use attachments::{PutAttachment, PutAttachments};
pub(crate) use calls::CompleteCall;
pub(crate) use conversation_edits::ConversationEdit;
pub(crate) use edits::{Edit, EditTasks};
pub(crate) use grants::GrantEdit;
pub(crate) use link::Reply;
pub(crate) use mcp_credentials::McpCredentialEdit;
pub(crate) use turns::StartTurn;
pub(crate) use writer::Writer;

use crate::prepared_step::PreparedStep;
use crate::tx::storage;

/// At most this many jobs are drained at once.
const MAX_DRAIN: usize = 256;

/// A write, with its typed fields and where its answer goes.
#[derive(Debug)]
pub(crate) enum Job {
    /// A running turn with its user message; answered with the conversation's version
    /// after the start.
    StartTurn(StartTurn, Reply<(Turn, Message, i64)>),
    /// A model step's rows, and the end of the turn when it is the last.
    RecordStep(Box<PreparedStep>, Reply<RecordedStep>),
    /// A tool call's result.
    CompleteCall(CompleteCall, Reply<smallebot_core::entities::ToolCall>),
    /// The end of a turn and its lease.
    FinishTurn {
        /// The turn.
        turn_id: TurnId,
        /// How it ended.
        status: TurnStatus,
        /// Why it failed, if it did.
        error: Option<String>,
        /// The ended turn.
        reply: Reply<Turn>,
    },
    /// A notification for the other processes on the database (sent when its
    /// statement commits, so after every write queued before it).
    Notify {
        /// The channel.
        channel: &'static str,
        /// The payload.
        payload: String,
        /// Whether it was sent.
        reply: Reply<()>,
    },
    /// One of the rarer writes (conversations, compression, counts, rewrites, users,
    /// task lists): alone in its drain slot, as one transaction when it has several
    /// statements.
    Edit(Edit),
    /// Nothing: answered once what was queued before it is written.
    Flush(Reply<()>),
    /// A running turn's lease renewed.
    Heartbeat {
        /// The turn.
        turn_id: TurnId,
        /// The renewal time.
        at: Timestamp,
        /// Whether the turn was still running.
        reply: Reply<bool>,
    },
}

/// Writes drained jobs: steps and tool results in batched statements, the rest one by
/// one.
async fn write_all(link: &mut Link, jobs: Vec<Job>) {
    let mut steps = Vec::new();
    let mut results = Vec::new();
    for job in jobs {
        match job {
            Job::RecordStep(step, reply) => steps.push((*step, reply)),
            Job::CompleteCall(call, reply) => results.push((call, reply)),
            Job::StartTurn(start, reply) => {
                let _ = reply.send(turns::start(link, &start).await);
            }
            Job::FinishTurn {
                turn_id,
                status,
                error,
                reply,
            } => {
                let _ = reply.send(turns::finish(link, turn_id, status, error.as_deref()).await);
            }
            Job::Edit(edit) => edits::run(link, edit).await,
            Job::Flush(reply) => {
                let _ = reply.send(Ok(()));
            }
            Job::Heartbeat { turn_id, at, reply } => {
                let _ = reply.send(turns::heartbeat(link, turn_id, at).await);
            }
            Job::Notify {
                channel,
                payload,
                reply,
            } => {
                let _ = reply.send(notify(link, channel, &payload).await);
            }
        }
    }
    for batch in batches(steps, |(step, _)| step.conversation_id) {
        steps::write(link, batch).await;
    }
    for batch in batches(results, |(call, _)| (call.turn_id, call.call_id.clone())) {
        calls::write(link, batch).await;
    }
}

/// Sends a notification on `channel`.
async fn notify(link: &mut Link, channel: &str, payload: &str) -> RepoResult<()> {
    const ACTION: &str = "relaying events to the other server processes";
    let conn = link.get().await.map_err(storage(ACTION))?;
    let sent = sqlx::query("SELECT pg_notify($1, $2)")
        .bind(channel)
        .bind(payload)
        .execute(&mut *conn)
        .await;
    sent.map(|_| ()).map_err(|e| failed(link, ACTION, e))
}

/// Splits `jobs` into batches where no key repeats, keeping the order of jobs with the
/// same key (the n-th job of a key goes to the n-th batch).
fn batches<J, K: PartialEq>(jobs: Vec<J>, key: impl Fn(&J) -> K) -> Vec<Vec<J>> {
    let mut batches: Vec<(Vec<K>, Vec<J>)> = Vec::new();
    for job in jobs {
        let k = key(&job);
        // After the last batch holding the key, so that key's jobs stay in order.
        let after = batches
            .iter()
            .rposition(|(keys, _)| keys.contains(&k))
            .map_or(0, |at| at + 1);
        match batches.get_mut(after) {
            Some((keys, batch)) => {
                keys.push(k);
                batch.push(job);
            }
            None => batches.push((vec![k], vec![job])),
        }
    }
    batches.into_iter().map(|(_, batch)| batch).collect()
}

#[cfg(test)]
mod tests;
