//! [`WebConfirmer`]: asking on a conversation's page whether a tool call may run.
//!
//! The agent's permission gate asks its confirmer about the calls the rules ask about
//! (and `ExecuteCommand` before running without the sandbox); this one keeps
//! the question as the conversation's pending confirmation, which every open event
//! stream of that conversation shows as a `confirm` event (also to a page opened
//! later), and waits for `POST …/confirmation` — or the timeout, or the turn's end —
//! whichever comes first. Anything but an explicit approval is a denial; an approval
//! reaches this call, the rest of the conversation, or always.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::Serialize;
use smallebot_application::ports::{Answer, CommandConfirmer, ConfirmationRequest};
use smallebot_core::ids::ConversationId;
use tokio::sync::{oneshot, watch};

use crate::pending::{Questions, Withdraw};

/// A confirmation the page shows.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PendingConfirmation {
    /// Its id, to answer it.
    pub request_id: u64,
    /// The call that waits, in one line (a command line, or the tool and arguments).
    pub command: String,
    /// The tool called (empty when not said).
    pub tool: String,
    /// Whether the call is a command line.
    pub is_command: bool,
    /// What asked: the permission rule, or the default that applied.
    pub rule: Option<String>,
    /// Seconds until it is denied without an answer.
    pub timeout_secs: u64,
    /// The command would run without the sandbox (the kernel has no Landlock).
    pub unconfined: bool,
}

/// Asks the person on the conversation's page; see the module docs.
#[derive(Default)]
pub struct WebConfirmer {
    questions: Questions<PendingConfirmation, Answer>,
}

/// Why an answer was not taken.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NothingPending;

impl WebConfirmer {
    /// A confirmer without pending questions.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Follows the conversation's pending confirmation (`None` when nothing waits).
    pub fn watch(
        &self,
        conversation_id: ConversationId,
    ) -> watch::Receiver<Option<PendingConfirmation>> {
        self.questions.watch(conversation_id)
    }

    /// Answers the pending confirmation `request_id` of the conversation.
    ///
    /// # Errors
    /// [`NothingPending`] when no such question waits (answered, timed out, or never
    /// asked).
    pub fn answer(
        &self,
        conversation_id: ConversationId,
        request_id: u64,
        approve: Answer,
    ) -> Result<(), NothingPending> {
        self.questions
            .answer(conversation_id, request_id, |_| {
                Ok::<_, std::convert::Infallible>(approve)
            })
            .map_err(|_| NothingPending)
    }

    /// Shows a question and returns its id and the answer's receiving end.
    fn ask(
        &self,
        conversation_id: ConversationId,
        request: &ConfirmationRequest<'_>,
        timeout: Duration,
    ) -> Option<(u64, oneshot::Receiver<Answer>)> {
        self.questions
            .ask(conversation_id, |request_id| PendingConfirmation {
                request_id,
                command: request.command.to_owned(),
                tool: request.tool.to_owned(),
                is_command: request.is_command,
                rule: request.rule.map(str::to_owned),
                timeout_secs: timeout.as_secs(),
                unconfined: request.unconfined,
            })
    }
}

#[async_trait]
impl CommandConfirmer for WebConfirmer {
    async fn confirm(&self, request: &ConfirmationRequest<'_>, timeout: Duration) -> bool {
        CommandConfirmer::answer(self, request, timeout)
            .await
            .allows()
    }

    async fn answer(&self, request: &ConfirmationRequest<'_>, timeout: Duration) -> Answer {
        // Outside a conversation there is no page to ask on.
        let Some(conversation_id) = request.conversation_id else {
            return Answer::Deny;
        };
        let Some((id, answer)) = self.ask(conversation_id, request, timeout) else {
            return Answer::Deny;
        };
        let _withdraw = Withdraw {
            questions: &self.questions,
            conversation_id,
            id,
        };
        match tokio::time::timeout(timeout, answer).await {
            Ok(Ok(answer)) => answer,
            _ => Answer::Deny,
        }
    }
}

/// The confirmer a [`WebState`](crate::WebState) answers through.
pub(crate) type SharedConfirmer = Arc<WebConfirmer>;

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn an_answer_reaches_the_waiting_command_once() {
        let confirmer = Arc::new(WebConfirmer::new());
        let c = ConversationId::new();
        let mut shown = confirmer.watch(c);
        let asking = Arc::clone(&confirmer);
        let waiting = tokio::spawn(async move {
            let request = ConfirmationRequest::new("rm -r build", Some(c), None);
            asking.confirm(&request, Duration::from_secs(5)).await
        });
        shown.changed().await.unwrap();
        let pending = shown.borrow_and_update().clone().unwrap();
        assert_eq!(pending.command, "rm -r build");
        assert!(!pending.unconfined);
        assert_eq!(
            confirmer.answer(c, pending.request_id + 1, Answer::Once),
            Err(NothingPending)
        );
        assert_eq!(
            confirmer.answer(c, pending.request_id, Answer::Once),
            Ok(())
        );
        assert!(waiting.await.unwrap());
        assert_eq!(*shown.borrow(), None);
        assert_eq!(
            confirmer.answer(c, pending.request_id, Answer::Deny),
            Err(NothingPending)
        );
    }

    #[tokio::test]
    async fn no_answer_in_time_or_no_conversation_is_a_denial() {
        let confirmer = WebConfirmer::new();
        let c = ConversationId::new();
        let request = ConfirmationRequest::new("ls", Some(c), None);
        assert!(!confirmer.confirm(&request, Duration::from_millis(50)).await);
        assert_eq!(
            *confirmer.watch(c).borrow(),
            None,
            "withdrawn after the timeout"
        );
        let nowhere = ConfirmationRequest::new("ls", None, None);
        assert!(!confirmer.confirm(&nowhere, Duration::from_secs(5)).await);
    }

    #[tokio::test]
    async fn the_page_shows_any_tool_s_call_with_its_rule_and_returns_how_far_it_reaches() {
        let confirmer = Arc::new(WebConfirmer::new());
        let c = ConversationId::new();
        let mut shown = confirmer.watch(c);
        let asking = Arc::clone(&confirmer);
        let waiting = tokio::spawn(async move {
            let request = ConfirmationRequest::new(r#"WriteFile {"path":"a"}"#, Some(c), None)
                .about("WriteFile", "ask WriteFile")
                .not_a_command();
            CommandConfirmer::answer(asking.as_ref(), &request, Duration::from_secs(5)).await
        });
        shown.changed().await.unwrap();
        let pending = shown.borrow_and_update().clone().unwrap();
        assert_eq!(
            (
                pending.tool.as_str(),
                pending.is_command,
                pending.rule.as_deref()
            ),
            ("WriteFile", false, Some("ask WriteFile"))
        );
        assert_eq!(
            confirmer.answer(c, pending.request_id, Answer::Conversation),
            Ok(())
        );
        assert_eq!(waiting.await.unwrap(), Answer::Conversation);
    }

    #[tokio::test]
    async fn the_page_learns_that_a_command_would_run_unconfined() {
        let confirmer = Arc::new(WebConfirmer::new());
        let c = ConversationId::new();
        let mut shown = confirmer.watch(c);
        let asking = Arc::clone(&confirmer);
        let waiting = tokio::spawn(async move {
            let request = ConfirmationRequest::new("make", Some(c), None).unconfined();
            asking.confirm(&request, Duration::from_secs(5)).await
        });
        shown.changed().await.unwrap();
        let pending = shown.borrow_and_update().clone().unwrap();
        assert!(pending.unconfined);
        assert_eq!(
            confirmer.answer(c, pending.request_id, Answer::Deny),
            Ok(())
        );
        assert!(!waiting.await.unwrap());
    }
}
