//! [`ApiError`]: a failed request as an HTTP status and a JSON `{"error": …}` body.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use smallebot_application::PipelineError;
use smallebot_core::RepositoryError;
use smallebot_core::rules::attachment::human_size;
use smallebot_core::rules::terminal_text::escape_line;

/// A request that failed, and why.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    /// `404` for an id the caller cannot see (echoed with its control characters
    /// shown).
    pub(crate) fn not_found(what: &str, id: impl std::fmt::Display) -> Self {
        Self {
            status: StatusCode::NOT_FOUND,
            message: format!("{what} {} not found", escape_line(&id.to_string())),
        }
    }

    /// `409`: the request contradicts what is going on (a turn runs).
    pub(crate) fn conflict(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::CONFLICT,
            message: message.into(),
        }
    }

    /// `400` with what was wrong with the request.
    pub(crate) fn bad_request(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    /// `401` for a request without a user's token.
    pub(crate) fn unauthorized(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::UNAUTHORIZED,
            message: message.into(),
        }
    }

    /// `403` for a request this server refuses to answer.
    pub(crate) fn forbidden(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::FORBIDDEN,
            message: message.into(),
        }
    }

    /// `413` for a body or a file over its limit (the refusal says which).
    pub(crate) fn too_large(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::PAYLOAD_TOO_LARGE,
            message: message.into(),
        }
    }

    /// `429` for a client that tried too often.
    pub(crate) fn too_many(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::TOO_MANY_REQUESTS,
            message: message.into(),
        }
    }

    /// `503` for a request the server cannot answer now (its database is out of
    /// reach).
    pub(crate) fn unavailable(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::SERVICE_UNAVAILABLE,
            message: message.into(),
        }
    }

    /// `502` for a failure of another server this one asked (an MCP server's
    /// authorization server).
    pub(crate) fn bad_gateway(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_GATEWAY,
            message: message.into(),
        }
    }

    /// `424` for an MCP server whose answer failed (a resource read, a prompt got):
    /// not `502`, which the page takes for a proxy saying this server is away.
    pub(crate) fn failed_dependency(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::FAILED_DEPENDENCY,
            message: message.into(),
        }
    }

    /// `500` for a failure of the server itself.
    pub(crate) fn internal(message: impl Into<String>) -> Self {
        let message = message.into();
        tracing::error!(%message, "request failed");
        Self {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message,
        }
    }

    /// The status this error answers with.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl std::fmt::Display for ApiError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} {}", self.status, self.message)
    }
}

impl std::error::Error for ApiError {}

impl From<PipelineError> for ApiError {
    fn from(err: PipelineError) -> Self {
        let status = match &err {
            PipelineError::Busy(_) | PipelineError::TurnRunning { .. } => StatusCode::CONFLICT,
            PipelineError::ConversationNotFound(_)
            | PipelineError::TurnNotFound { .. }
            | PipelineError::Repository(RepositoryError::NotFound { .. }) => StatusCode::NOT_FOUND,
            // What a file is, not its size: an image that is none.
            PipelineError::AttachmentRefused(refusal) if refusal.is_about_content() => {
                StatusCode::BAD_REQUEST
            }
            PipelineError::EmptyMessage
            | PipelineError::PromptBlocked { .. }
            | PipelineError::MessageNotEditable { .. }
            | PipelineError::UnknownModel { .. }
            | PipelineError::AttachmentNotSendable { .. }
            | PipelineError::ImagesNotSupported { .. } => StatusCode::BAD_REQUEST,
            // Nothing was stored: files over agent.json's limits.
            PipelineError::AttachmentRefused(_)
            | PipelineError::QuotaRefused(_)
            | PipelineError::Repository(RepositoryError::OverQuota(_)) => {
                StatusCode::PAYLOAD_TOO_LARGE
            }
            // A request that contradicts what is stored (a summarized turn to undo or
            // regenerate, a name taken): nothing was changed.
            PipelineError::Repository(
                RepositoryError::TurnRunning(_) | RepositoryError::Conflict(_),
            ) => StatusCode::CONFLICT,
            // The database is down or out of reach: try again later.
            PipelineError::Repository(RepositoryError::Unavailable { .. }) => {
                StatusCode::SERVICE_UNAVAILABLE
            }
            PipelineError::ShuttingDown => StatusCode::SERVICE_UNAVAILABLE,
            _ => StatusCode::INTERNAL_SERVER_ERROR,
        };
        if status == StatusCode::INTERNAL_SERVER_ERROR {
            tracing::error!(%err, "request failed");
        } else if status == StatusCode::SERVICE_UNAVAILABLE {
            tracing::warn!(%err, "request failed: the database cannot be reached");
        }
        Self {
            status,
            message: err.to_string(),
        }
    }
}

impl From<RepositoryError> for ApiError {
    fn from(err: RepositoryError) -> Self {
        PipelineError::from(err).into()
    }
}

impl From<JsonRejection> for ApiError {
    /// `413` for a body over the limit; every other unreadable body (not JSON, wrong
    /// fields, wrong content type) is a `400` that says what was wrong.
    fn from(rejection: JsonRejection) -> Self {
        if rejection.status() == StatusCode::PAYLOAD_TOO_LARGE {
            return Self::too_large(format!(
                "the request body is over the limit of {}: send less",
                human_size(i64::try_from(crate::MAX_BODY_BYTES).unwrap_or(i64::MAX))
            ));
        }
        Self {
            status: StatusCode::BAD_REQUEST,
            message: format!("bad request body: {}", rejection.body_text()),
        }
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let body = Json(smallebot_protocol::api::ErrorBody {
            error: self.message,
        });
        (self.status, body).into_response()
    }
}
