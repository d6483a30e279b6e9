//! Attachments: upload files into a conversation (multipart), serve one back.

use axum::Json;
use axum::body::Body;
use axum::extract::multipart::{Multipart, MultipartError};
use axum::extract::{Path, State};
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::Response;
use smallebot_core::entities::AttachmentKind;
use smallebot_core::ids::AttachmentId;
use smallebot_core::rules::attachment::{AttachmentLimits, human_size};
use smallebot_core::rules::upload_quota::UploadQuotas;
use smallebot_protocol::attachments::Uploaded;

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::state::WebState;
use smallebot_application::wire;

/// What a multipart body may carry beyond its files (boundaries, part headers).
const MULTIPART_OVERHEAD_BYTES: usize = 64 * 1024;

/// The body limit of `POST …/attachments`: one message's files (agent.json
/// `attachments.maxMessageBytes`) and the multipart framing, instead of the 1 MiB of
/// the JSON routes.
pub(crate) fn upload_body_limit(limits: &AttachmentLimits) -> usize {
    usize::try_from(limits.max_message_bytes.max(limits.max_file_bytes))
        .unwrap_or(usize::MAX)
        .saturating_add(MULTIPART_OVERHEAD_BYTES)
}

/// `POST /api/conversations/{id}/attachments`: stores each file part of a
/// `multipart/form-data` body (its file name and content; the type is sniffed from the
/// content) on no message yet, all or none; `201` with them in order. More parts than
/// `maxPartsPerUpload` (counted as they come), a file over the per-file limit, files
/// over the per-message limits together, or more waiting unsent than the per-user or
/// per-conversation quota are `413`, a file that starts as an image and is none (or
/// states an absurd size) `400`, with nothing stored. A refused body is read to its
/// end (within the body limit) and dropped, so that the refusal reaches the client.
pub(crate) async fn upload(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
    mut multipart: Multipart,
) -> Result<(StatusCode, Json<Uploaded>), ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    let settings = service.settings();
    let (limits, quotas) = (settings.attachments, settings.uploads);
    let files = match read_files(&mut multipart, &limits, &quotas).await {
        Ok(files) => files,
        Err(refusal) => {
            drain(&mut multipart).await;
            return Err(refusal);
        }
    };
    if files.is_empty() {
        return Err(ApiError::bad_request(
            "no file in the body: send multipart/form-data with one or more file parts",
        ));
    }
    let stored = service
        .attach_files(conversation.id, files)
        .await?
        .iter()
        .map(wire::bodies::attachment)
        .collect();
    Ok((
        StatusCode::CREATED,
        Json(Uploaded {
            attachments: stored,
        }),
    ))
}

/// The file parts of an upload (name and content each), held to `maxPartsPerUpload`
/// and the per-file limit as they come.
async fn read_files(
    multipart: &mut Multipart,
    limits: &AttachmentLimits,
    quotas: &UploadQuotas,
) -> Result<Vec<(String, Vec<u8>)>, ApiError> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut parts = 0usize;
    while let Some(mut field) = multipart.next_field().await.map_err(unreadable)? {
        parts += 1;
        quotas
            .check_parts(parts)
            .map_err(|refusal| ApiError::too_large(format!("{refusal}; nothing was stored")))?;
        let Some(name) = field.file_name().map(str::to_owned) else {
            continue;
        };
        let mut content = Vec::new();
        while let Some(chunk) = field.chunk().await.map_err(unreadable)? {
            content.extend_from_slice(&chunk);
            // Refused as soon as it is over: the rest is not kept, so its size is not
            // known.
            if over_file_limit(content.len(), limits) {
                return Err(file_too_large(&name, limits));
            }
        }
        files.push((name, content));
    }
    Ok(files)
}

/// Whether `size` bytes are over the per-file limit.
pub(crate) fn over_file_limit(size: usize, limits: &AttachmentLimits) -> bool {
    i64::try_from(size).unwrap_or(i64::MAX) > limits.max_file_bytes
}

/// `413` for the file `name` over the per-file limit (an upload's part, or an MCP
/// resource to send as one).
pub(crate) fn file_too_large(name: &str, limits: &AttachmentLimits) -> ApiError {
    ApiError::too_large(format!(
        "'{name}' is over the limit of {} per file (agent.json attachments.maxFileBytes): \
         send a smaller file",
        human_size(limits.max_file_bytes)
    ))
}

/// Reads the rest of a refused upload without keeping it (at most up to the route's
/// body limit, which the stream enforces): a server that closes a connection with
/// unread data resets it, and the client may then lose the refusal — the page would
/// show a network error instead of what to do.
async fn drain(multipart: &mut Multipart) {
    while let Ok(Some(mut field)) = multipart.next_field().await {
        while let Ok(Some(_)) = field.chunk().await {}
    }
}

/// A multipart body that cannot be read: `413` past the body limit, else `400`.
fn unreadable(error: MultipartError) -> ApiError {
    if error.status() == StatusCode::PAYLOAD_TOO_LARGE {
        ApiError::too_large(
            "the upload is over the limit of one message's files (agent.json \
             attachments.maxMessageBytes): send fewer or smaller files",
        )
    } else {
        ApiError::bad_request(format!("bad multipart body: {}", error.body_text()))
    }
}

/// `GET /api/conversations/{id}/attachments/{attachment_id}`: the content with its
/// sniffed type, inline for a raster image and as a download otherwise, never sniffed
/// by the browser and sandboxed (an SVG or HTML file runs no script even when opened
/// directly). Another user's conversation or attachment is `404`.
pub(crate) async fn content(
    State(state): State<WebState>,
    user: CurrentUser,
    Path((id, attachment_id)): Path<(String, String)>,
) -> Result<Response, ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    let not_found = || ApiError::not_found("attachment", &attachment_id);
    let aid: AttachmentId = attachment_id.parse().map_err(|_| not_found())?;
    let store = state.service.store();
    let attachment = store
        .get_attachment(aid)
        .await?
        .filter(|a| a.conversation_id == conversation.id)
        .ok_or_else(not_found)?;
    let bytes = store.attachment_content(aid).await?.ok_or_else(not_found)?;
    let media_type =
        if attachment.kind == AttachmentKind::Text && !attachment.media_type.contains("charset") {
            format!("{}; charset=utf-8", attachment.media_type)
        } else {
            attachment.media_type.clone()
        };
    let disposition =
        content_disposition(attachment.kind == AttachmentKind::Image, &attachment.name);
    let mut response = Response::new(Body::from(bytes));
    let headers = response.headers_mut();
    let value = |text: &str| {
        HeaderValue::from_str(text)
            .map_err(|_| ApiError::internal(format!("cannot send the header value {text:?}")))
    };
    headers.insert(header::CONTENT_TYPE, value(&media_type)?);
    headers.insert(header::CONTENT_DISPOSITION, value(&disposition)?);
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(
            "sandbox; default-src 'none'; img-src 'self'; style-src 'unsafe-inline'",
        ),
    );
    Ok(response)
}

/// The `Content-Disposition` of a served file: `inline` or `attachment`, its name as a
/// quoted ASCII fallback (anything else, quotes and backslashes as `_`) and as
/// RFC 5987 `filename*` (UTF-8, percent-encoded).
pub(crate) fn content_disposition(inline: bool, name: &str) -> String {
    let kind = if inline { "inline" } else { "attachment" };
    let fallback: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_graphic() && c != '"' && c != '\\' || c == ' ' {
                c
            } else {
                '_'
            }
        })
        .collect();
    let mut encoded = String::with_capacity(name.len());
    for byte in name.bytes() {
        if byte.is_ascii_alphanumeric() || b"!#$&+-.^_`|~".contains(&byte) {
            encoded.push(char::from(byte));
        } else {
            encoded.push_str(&format!("%{byte:02X}"));
        }
    }
    format!("{kind}; filename=\"{fallback}\"; filename*=UTF-8''{encoded}")
}

#[cfg(test)]
mod tests {
    use super::content_disposition;

    #[test]
    fn names_are_quoted_safely_and_encoded() {
        let cases = [
            (
                true,
                "shot.png",
                "inline; filename=\"shot.png\"; filename*=UTF-8''shot.png",
            ),
            (
                false,
                "a \"b\"\\c.txt",
                "attachment; filename=\"a _b__c.txt\"; filename*=UTF-8''a%20%22b%22%5Cc.txt",
            ),
            (
                false,
                "résumé.pdf",
                "attachment; filename=\"r_sum_.pdf\"; filename*=UTF-8''r%C3%A9sum%C3%A9.pdf",
            ),
            (
                false,
                "a\r\nb",
                "attachment; filename=\"a__b\"; filename*=UTF-8''a%0D%0Ab",
            ),
        ];
        for (inline, name, expected) in cases {
            assert_eq!(content_disposition(inline, name), expected, "{name}");
        }
    }
}
