//! [`WebElicitor`]: an MCP server's question during a tool call (elicitation), asked on
//! the conversation's page as a form.
//!
//! The MCP client asks its elicitor in the context of the call; this one keeps the form
//! as the conversation's pending elicitation, which every open event stream of that
//! conversation shows as an `elicit` event (also to a page opened later), and waits for
//! `POST …/elicitation` — or the timeout (declined), or the turn's end — whichever
//! comes first. An accepted answer is checked against the form first: one that does not
//! fit is refused with the reason and the form stays pending, so the page can fix it.
//! One form at a time per conversation: a second (a parallel call's) waits until the
//! first is closed, within its own timeout.

use std::sync::Arc;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde_json::{Map, Value};
use smallebot_application::ports::{ElicitationAnswer, ElicitationRequest, Elicitor};
use smallebot_core::ids::ConversationId;
use smallebot_core::rules::elicitation::{FieldKind, Form, check_content};
use smallebot_protocol::api::{
    ElicitationChoice, ElicitationField, ElicitationFieldKind, ElicitationReply,
};
use tokio::sync::watch;

use crate::pending::{Questions, Refusal, Withdraw};

/// A form the page shows.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingElicitation {
    /// Its id, to answer it.
    pub request_id: u64,
    /// The MCP server that asks.
    pub server: String,
    /// Its message to the person.
    pub message: String,
    /// The form's fields.
    pub form: Form,
    /// Seconds until it is declined without an answer.
    pub timeout_secs: u64,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ElicitationRefused {
    /// No such form waits (answered, timed out, the turn ended, or never asked).
    NothingPending,
    /// The answer does not fit the form (which stays pending): what does not, field
    /// by field.
    Unfit(String),
}

/// Asks the person on the conversation's page; see the module docs.
#[derive(Default)]
pub struct WebElicitor {
    questions: Questions<PendingElicitation, ElicitationAnswer>,
}

impl WebElicitor {
    /// An elicitor without pending forms.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Follows the conversation's pending form (`None` when none waits).
    pub fn watch(
        &self,
        conversation_id: ConversationId,
    ) -> watch::Receiver<Option<PendingElicitation>> {
        self.questions.watch(conversation_id)
    }

    /// Answers the pending form `request_id` of the conversation: `accept` with
    /// `content` (checked against the form; a field left out gets its default),
    /// `decline` or `cancel`.
    ///
    /// # Errors
    /// [`ElicitationRefused::NothingPending`] when no such form waits;
    /// [`ElicitationRefused::Unfit`] when the content does not fit the form.
    pub fn answer(
        &self,
        conversation_id: ConversationId,
        request_id: u64,
        reply: ElicitationReply,
        content: Option<Map<String, Value>>,
    ) -> Result<(), ElicitationRefused> {
        self.questions
            .answer(conversation_id, request_id, |pending| match reply {
                ElicitationReply::Accept => {
                    check_content(&pending.form, &content.unwrap_or_default())
                        .map(ElicitationAnswer::Accept)
                }
                ElicitationReply::Decline => Ok(ElicitationAnswer::Decline),
                ElicitationReply::Cancel => Ok(ElicitationAnswer::Cancel),
            })
            .map_err(|refusal| match refusal {
                Refusal::NothingPending => ElicitationRefused::NothingPending,
                Refusal::Unfit(why) => ElicitationRefused::Unfit(why),
            })
    }

    /// Shows the form of `request` once the forms before it closed, and waits for the
    /// answer.
    async fn ask(
        &self,
        conversation_id: ConversationId,
        request: &ElicitationRequest<'_>,
        timeout: Duration,
    ) -> ElicitationAnswer {
        let Some(line) = self.questions.line(conversation_id) else {
            return ElicitationAnswer::NoOneToAsk;
        };
        let started = Instant::now();
        let _turn = line.lock().await;
        let shown = |request_id| PendingElicitation {
            request_id,
            server: request.server.to_owned(),
            message: request.message.to_owned(),
            form: request.form.clone(),
            // What is left of it after waiting in line.
            timeout_secs: timeout.saturating_sub(started.elapsed()).as_secs(),
        };
        let Some((id, answer)) = self.questions.ask(conversation_id, shown) else {
            return ElicitationAnswer::NoOneToAsk;
        };
        let _withdraw = Withdraw {
            questions: &self.questions,
            conversation_id,
            id,
        };
        // The sender goes only with the answer or the withdrawal: a decline either way.
        answer.await.unwrap_or(ElicitationAnswer::Decline)
    }
}

#[async_trait]
impl Elicitor for WebElicitor {
    async fn elicit(
        &self,
        request: &ElicitationRequest<'_>,
        timeout: Duration,
    ) -> ElicitationAnswer {
        // Outside a conversation there is no page to ask on.
        let Some(conversation_id) = request.conversation_id else {
            return ElicitationAnswer::NoOneToAsk;
        };
        tokio::time::timeout(timeout, self.ask(conversation_id, request, timeout))
            .await
            .unwrap_or(ElicitationAnswer::TimedOut)
    }
}

/// The form's fields as the `elicit` event sends them.
#[must_use]
pub(crate) fn wire_fields(form: &Form) -> Vec<ElicitationField> {
    form.iter()
        .map(|field| {
            let mut wire = ElicitationField {
                name: field.name.clone(),
                title: field.title.clone(),
                description: field.description.clone(),
                kind: ElicitationFieldKind::Text,
                required: field.required,
                default: field.default.clone(),
                choices: Vec::new(),
                min_length: None,
                max_length: None,
                minimum: None,
                maximum: None,
            };
            match &field.kind {
                FieldKind::Text {
                    min_length,
                    max_length,
                } => {
                    wire.min_length = *min_length;
                    wire.max_length = *max_length;
                }
                FieldKind::Number {
                    integer,
                    minimum,
                    maximum,
                } => {
                    wire.kind = if *integer {
                        ElicitationFieldKind::Integer
                    } else {
                        ElicitationFieldKind::Number
                    };
                    wire.minimum = *minimum;
                    wire.maximum = *maximum;
                }
                FieldKind::Boolean => wire.kind = ElicitationFieldKind::Boolean,
                FieldKind::Choice { values, labels } => {
                    wire.kind = ElicitationFieldKind::Choice;
                    wire.choices = values
                        .iter()
                        .zip(labels)
                        .map(|(value, label)| ElicitationChoice {
                            value: value.clone(),
                            label: label.clone(),
                        })
                        .collect();
                }
            }
            wire
        })
        .collect()
}

/// The elicitor a [`WebState`](crate::WebState) answers through.
pub(crate) type SharedElicitor = Arc<WebElicitor>;

#[cfg(test)]
#[path = "elicit_tests.rs"]
mod tests;
