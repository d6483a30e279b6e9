//! A server's `elicitation/create` during a tool call: its form shown to the person
//! who runs the call's conversation (through the [`Elicitor`] port), within the
//! server's `elicitationTimeoutSeconds`; the answer checked against the form, sent
//! back, and reported on the call.

use std::time::Duration;

use rmcp::ErrorData as McpError;
use rmcp::model::{ElicitRequestParams, ElicitResult, ElicitationAction as Wire};
use serde_json::Value;
use smallebot_application::ports::{ElicitationAnswer, ElicitationRequest, Elicitor};
use smallebot_core::rules::elicitation::{
    ElicitationAction, ElicitationOutcome, check_content, form_of,
};

use super::asking::Asking;

/// Asks the person `params` for the server `server` (at most `timeout`) and says what
/// to answer it.
///
/// # Errors
/// A schema that is not a form (the server is told why).
pub(crate) async fn answer(
    server: &str,
    timeout: Duration,
    asking: &Asking,
    elicitor: &dyn Elicitor,
    params: ElicitRequestParams,
) -> Result<ElicitResult, McpError> {
    let call = asking.call_to_ask();
    let (message, schema) = match params {
        ElicitRequestParams::FormElicitationParams {
            message,
            requested_schema,
            ..
        } => {
            let schema = serde_json::to_value(requested_schema).map_err(|e| {
                McpError::invalid_params(
                    format!("the elicitation's requestedSchema cannot be read: {e}"),
                    None,
                )
            })?;
            (message, schema)
        }
        other => {
            // Opening a page for the person is not offered: declined, and said so.
            let message = match other {
                ElicitRequestParams::UrlElicitationParams { message, url, .. } => {
                    format!("{message} (a page to open: {url}; not supported, declined)")
                }
                _ => "(a kind of question this client does not know; declined)".to_owned(),
            };
            if let Some(call) = &call {
                call.elicitations.report(ElicitationOutcome {
                    server: server.to_owned(),
                    message,
                    action: ElicitationAction::Declined,
                    content: None,
                });
            }
            return Ok(ElicitResult::new(Wire::Decline));
        }
    };
    let form = form_of(&schema).map_err(|problem| {
        McpError::invalid_params(
            format!("the elicitation's requestedSchema cannot be shown as a form: {problem}"),
            None,
        )
    })?;
    let answer = match &call {
        None => ElicitationAnswer::NoOneToAsk,
        Some(call) => {
            let request = ElicitationRequest::new(server, &message, &form, &schema).in_call(
                call.conversation_id,
                call.turn_id,
                call.call_id.as_deref(),
            );
            let _paused = call.clock.pause();
            tokio::select! {
                answer = tokio::time::timeout(timeout, elicitor.elicit(&request, timeout)) => {
                    answer.unwrap_or(ElicitationAnswer::TimedOut)
                }
                () = call.cancel.cancelled() => ElicitationAnswer::Cancel,
            }
        }
    };
    let (action, content) = match answer {
        // The front end checked it; checked again, as the server is promised a fit.
        ElicitationAnswer::Accept(content) => match check_content(&form, &content) {
            Ok(content) => (ElicitationAction::Accepted, Some(content)),
            Err(problem) => {
                tracing::warn!(server, %problem, "an elicitation answer did not fit its form; declined");
                (ElicitationAction::Declined, None)
            }
        },
        ElicitationAnswer::Decline => (ElicitationAction::Declined, None),
        ElicitationAnswer::Cancel => (ElicitationAction::Cancelled, None),
        ElicitationAnswer::TimedOut => (ElicitationAction::TimedOut, None),
        ElicitationAnswer::NoOneToAsk => (ElicitationAction::NoOneToAsk, None),
    };
    let result = match (&action, &content) {
        (ElicitationAction::Accepted, Some(content)) => {
            ElicitResult::new(Wire::Accept).with_content(Value::Object(content.clone()))
        }
        (ElicitationAction::Cancelled, _) => ElicitResult::new(Wire::Cancel),
        _ => ElicitResult::new(Wire::Decline),
    };
    if let Some(call) = &call {
        call.elicitations.report(ElicitationOutcome {
            server: server.to_owned(),
            message,
            action,
            content,
        });
    }
    Ok(result)
}
