//! The writes of attachments: storing an upload, linking uploads to the user message
//! that carries them, moving them to an edit's new version, and removing content no
//! row uses any more.
//!
//! Content files are written before the job that stores their row (a job holds the
//! write lock and should not spend it writing megabytes); the job checks that the file
//! is still there — a `sweep` of another process may have removed it between — and
//! writes it again when not. A sweep runs as a job of its own after the commit that
//! deleted rows, so it removes a file only when no committed (or same-transaction)
//! row names its digest: the write lock orders it against every store of the row.

use std::collections::HashSet;
use std::sync::Arc;

use rusqlite::Connection;
use smallebot_core::RepositoryError;
use smallebot_core::entities::Attachment;
use smallebot_core::ids::{AttachmentId, ConversationId, MessageId};
use smallebot_core::repository::RepoResult;
use smallebot_core::rules::attachment_link::check_link;
use smallebot_core::rules::upload_quota::{PendingBytes, UploadQuotas};
use smallebot_core::time::{Timestamp, format_timestamp};

use crate::content_files::ContentFiles;
use crate::queries::{self, execute, first, int0};

/// An upload to store: its row, its indexed text and its content.
#[derive(Debug)]
pub(crate) struct AttachmentPut {
    /// The row.
    pub(crate) attachment: Attachment,
    /// What the full-text index holds for it once linked.
    pub(crate) search_text: String,
    /// Where its content goes.
    pub(crate) files: ContentFiles,
    /// The content (already written once; written again only if a sweep removed it).
    pub(crate) content: Arc<Vec<u8>>,
}

/// Uploads into one conversation, stored together under the quotas.
#[derive(Debug)]
pub(crate) struct AttachmentsPut {
    /// The uploads, in order.
    pub(crate) puts: Vec<AttachmentPut>,
    /// The quotas they are held to.
    pub(crate) quotas: UploadQuotas,
    /// When they were uploaded (what expired is judged from it).
    pub(crate) now: Timestamp,
}

/// Deletes the expired unsent uploads, checks the quotas with what still waits, then
/// stores every upload (see `AttachmentRepository::put_attachments`); the rows, and the
/// digests of what was deleted (to sweep once committed).
pub(super) fn insert_all(
    conn: &Connection,
    put: &AttachmentsPut,
) -> RepoResult<(Vec<Attachment>, Vec<String>)> {
    let Some(first) = put.puts.first() else {
        return Ok((Vec::new(), Vec::new()));
    };
    let conversation_id = first.attachment.conversation_id;
    if put
        .puts
        .iter()
        .any(|p| p.attachment.conversation_id != conversation_id)
    {
        return Err(RepositoryError::Conflict(
            "the uploads of one request go into one conversation; nothing was stored".into(),
        ));
    }
    let cutoff = put.quotas.expired_before(put.now);
    let (_, expired) = delete_unsent_before(conn, &cutoff)?;
    let pending = pending_bytes(conn, conversation_id, &cutoff)?;
    let adding = put
        .puts
        .iter()
        .fold(0_i64, |sum, p| sum.saturating_add(p.attachment.size));
    put.quotas
        .check_pending(pending, adding)
        .map_err(RepositoryError::OverQuota)?;
    let stored = put
        .puts
        .iter()
        .map(|p| insert(conn, p))
        .collect::<RepoResult<Vec<_>>>()?;
    Ok((stored, expired))
}

/// The bytes waiting unsent (uploaded at or after `cutoff`) in `conversation_id` and
/// over all the conversations of its user.
fn pending_bytes(
    conn: &Connection,
    conversation_id: ConversationId,
    cutoff: &Timestamp,
) -> RepoResult<PendingBytes> {
    let sums = first(
        conn,
        "adding up the files waiting unsent",
        "SELECT COALESCE(SUM(a.size), 0), \
                COALESCE(SUM(CASE WHEN a.conversation_id = ?1 THEN a.size ELSE 0 END), 0) \
         FROM attachments a JOIN conversations c ON c.id = a.conversation_id \
         WHERE a.message_id IS NULL AND a.created_at >= ?2 \
           AND c.user_name = (SELECT user_name FROM conversations WHERE id = ?1)",
        (conversation_id.to_string(), format_timestamp(cutoff)),
        |row| {
            let user = int0(row)?;
            let conversation = row
                .get::<_, i64>(1)
                .map_err(|e| RepositoryError::Corrupt(format!("a pending total: {e}")))?;
            Ok(PendingBytes { user, conversation })
        },
    )?;
    Ok(sums.unwrap_or_default())
}

/// Deletes the uploads never sent that were uploaded before `before`; how many, and the
/// digests of their content (to sweep once committed).
pub(super) fn delete_unsent_before(
    conn: &Connection,
    before: &Timestamp,
) -> RepoResult<(u64, Vec<String>)> {
    let before = format_timestamp(before);
    let sha256s = digests(
        conn,
        "SELECT DISTINCT sha256 FROM attachments WHERE message_id IS NULL AND created_at < ?1",
        [&before],
    )?;
    if sha256s.is_empty() {
        return Ok((0, sha256s));
    }
    let deleted = execute(
        conn,
        "deleting expired uploads",
        "DELETE FROM attachments WHERE message_id IS NULL AND created_at < ?1",
        [&before],
    )?;
    Ok((u64::try_from(deleted).unwrap_or(u64::MAX), sha256s))
}

/// Stores an upload's row, its content file being there; refuses an unknown
/// conversation.
fn insert(conn: &Connection, put: &AttachmentPut) -> RepoResult<Attachment> {
    const ACTION: &str = "storing an attachment";
    let a = &put.attachment;
    if !put.files.exists(&a.sha256)? {
        put.files.write(&a.sha256, &put.content)?;
    }
    let changed = execute(
        conn,
        ACTION,
        "INSERT INTO attachments (id, conversation_id, message_id, name, media_type, kind, \
         size, sha256, image_width, image_height, search_text, created_at) \
         SELECT ?1, id, NULL, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11 FROM conversations \
         WHERE id = ?2",
        (
            a.id.to_string(),
            a.conversation_id.to_string(),
            &a.name,
            &a.media_type,
            a.kind.as_str(),
            a.size,
            &a.sha256,
            a.image_size.map(|s| i64::from(s.width)),
            a.image_size.map(|s| i64::from(s.height)),
            &put.search_text,
            format_timestamp(&a.created_at),
        ),
    )?;
    if changed == 0 {
        return Err(RepositoryError::not_found(
            "conversation",
            a.conversation_id,
        ));
    }
    Ok(a.clone())
}

/// Links the uploads `ids` (each once) to `message_id`, a user message of
/// `conversation_id`; returns them in upload order. Refuses an unknown id, one of
/// another conversation and one already on a message (the caller's savepoint then
/// drops everything).
pub(super) fn link(
    conn: &Connection,
    conversation_id: ConversationId,
    message_id: MessageId,
    ids: &[AttachmentId],
) -> RepoResult<Vec<Attachment>> {
    if ids.is_empty() {
        return Ok(Vec::new());
    }
    let mut seen = HashSet::new();
    for id in ids.iter().filter(|id| seen.insert(**id)) {
        let found = queries::attachment(conn, *id)?;
        check_link(*id, found.as_ref(), conversation_id)?;
        execute(
            conn,
            "linking an attachment to its message",
            "UPDATE attachments SET message_id = ?1 WHERE id = ?2",
            (message_id.to_string(), id.to_string()),
        )?;
    }
    queries::message_attachments(conn, message_id)
}

/// Moves the attachments of message `from` to message `to` (an edit's new version);
/// returns them.
pub(super) fn move_to(
    conn: &Connection,
    from: MessageId,
    to: MessageId,
) -> RepoResult<Vec<Attachment>> {
    execute(
        conn,
        "keeping a message's attachments on its new version",
        "UPDATE attachments SET message_id = ?2 WHERE message_id = ?1",
        (from.to_string(), to.to_string()),
    )?;
    queries::message_attachments(conn, to)
}

/// The digests of the attachments `sql` selects (one `sha256` column) for `params`:
/// the content a delete about to run may leave unused.
pub(super) fn digests(
    conn: &Connection,
    sql: &str,
    params: impl rusqlite::Params,
) -> RepoResult<Vec<String>> {
    queries::all(
        conn,
        "finding attachments' content",
        sql,
        params,
        queries::text0,
    )
}

/// Removes the content files of `sha256s` no attachment row names any more (run after
/// the commit that deleted rows).
pub(super) fn sweep(conn: &Connection, files: &ContentFiles, sha256s: &[String]) -> RepoResult<()> {
    for sha256 in sha256s {
        let used = first(
            conn,
            "checking whether attachment content is used",
            "SELECT COUNT(*) FROM attachments WHERE sha256 = ?1",
            [sha256],
            int0,
        )?
        .unwrap_or(0);
        if used == 0 {
            files.remove(sha256);
        }
    }
    Ok(())
}
