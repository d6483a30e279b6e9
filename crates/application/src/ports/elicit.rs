//! The elicitation port: an MCP server asking the person for input during a tool call
//! (`elicitation/create`), with a form its schema describes.
//!
//! The MCP client asks through it in the context of the call the server is running; a
//! front end implements it (the chat REPL prompts field by field, the web app shows a
//! form on the conversation's page). [`NoOneToAsk`] declines at once, where nobody can
//! be asked (`smallebot run` without a terminal).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::{Map, Value};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_core::rules::elicitation::{ElicitationOutcome, Form};

/// What an elicitation asks: who asks, why, and the form.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct ElicitationRequest<'a> {
    /// The MCP server that asks.
    pub server: &'a str,
    /// Its message to the person.
    pub message: &'a str,
    /// The form's fields, read from `schema`.
    pub form: &'a Form,
    /// The server's `requestedSchema`, as sent (a web form is built from it).
    pub schema: &'a Value,
    /// The conversation whose tool call the server is running.
    pub conversation_id: Option<ConversationId>,
    /// Its turn.
    pub turn_id: Option<TurnId>,
    /// The model's id of the call.
    pub call_id: Option<&'a str>,
}

impl<'a> ElicitationRequest<'a> {
    /// A request of `server` with `message` and the form `form` (read from `schema`),
    /// outside any call until [`ElicitationRequest::in_call`].
    #[must_use]
    pub fn new(server: &'a str, message: &'a str, form: &'a Form, schema: &'a Value) -> Self {
        Self {
            server,
            message,
            form,
            schema,
            conversation_id: None,
            turn_id: None,
            call_id: None,
        }
    }

    /// The same request, made during the call `call_id` of `turn_id` in
    /// `conversation_id`.
    #[must_use]
    pub fn in_call(
        mut self,
        conversation_id: Option<ConversationId>,
        turn_id: Option<TurnId>,
        call_id: Option<&'a str>,
    ) -> Self {
        self.conversation_id = conversation_id;
        self.turn_id = turn_id;
        self.call_id = call_id;
        self
    }
}

/// The person's answer to an elicitation.
#[derive(Debug, Clone, PartialEq)]
pub enum ElicitationAnswer {
    /// The form filled in, checked against its schema.
    Accept(Map<String, Value>),
    /// Declined: the server goes on without it.
    Decline,
    /// Cancelled: the server should stop what it was doing.
    Cancel,
    /// No answer within the timeout (declined to the server).
    TimedOut,
    /// Nobody could be asked (declined to the server).
    NoOneToAsk,
}

/// Asks the person to fill in an MCP server's form.
#[async_trait]
pub trait Elicitor: Send + Sync {
    /// Shows `request` and waits at most `timeout` for the answer; an answer that
    /// does not fit the form is asked again (or refused with the reason) before it
    /// is returned as [`ElicitationAnswer::Accept`].
    async fn elicit(
        &self,
        request: &ElicitationRequest<'_>,
        timeout: Duration,
    ) -> ElicitationAnswer;
}

/// Declines every elicitation at once: for hosts without a person to ask.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoOneToAsk;

#[async_trait]
impl Elicitor for NoOneToAsk {
    async fn elicit(
        &self,
        _request: &ElicitationRequest<'_>,
        _timeout: Duration,
    ) -> ElicitationAnswer {
        ElicitationAnswer::NoOneToAsk
    }
}

/// What the elicitations of one tool call came to, as the MCP client reports them
/// for the call's events and its stored result; clones share it.
#[derive(Debug, Clone, Default)]
pub struct CallElicitations(Arc<Mutex<Vec<ElicitationOutcome>>>);

impl CallElicitations {
    /// Adds one.
    pub fn report(&self, outcome: ElicitationOutcome) {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .push(outcome);
    }

    /// What was reported so far, kept.
    #[must_use]
    pub fn all(&self) -> Vec<ElicitationOutcome> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
    }

    /// What was reported so far, taken out.
    #[must_use]
    pub fn take(&self) -> Vec<ElicitationOutcome> {
        std::mem::take(&mut *self.0.lock().unwrap_or_else(PoisonError::into_inner))
    }
}
