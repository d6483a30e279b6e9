//! The model attempt in flight: whether it has streamed text (a retry then says its
//! partial answer is discarded), and, with held attempts, its text kept until it has
//! finished.

use std::io::Write;

use smallebot_application::{Event, EventKind};

use super::EventPrinter;

impl<W: Write> EventPrinter<W> {
    /// Notes whether the attempt in flight has streamed answer text.
    pub(super) fn note_attempt(&mut self, event: &EventKind) {
        match event {
            EventKind::TextDelta { text } if !text.is_empty() => self.attempt_text = true,
            // A new step's request (its text before is stored), or a new turn.
            EventKind::TurnStarted | EventKind::ToolCallStarted { .. } => {
                self.attempt_text = false;
            }
            _ => {}
        }
    }

    /// With held attempts: keeps the answer text of the attempt in flight, drops it
    /// when the attempt is retried, prints it once the attempt has finished (its tool
    /// calls start, or the turn ends). Whether `event` was taken here.
    pub(super) fn hold(&mut self, event: &Event) -> std::io::Result<bool> {
        let Some(held) = self.held.as_mut() else {
            return Ok(false);
        };
        match &event.kind {
            EventKind::TextDelta { text } => {
                held.push_str(text);
                return Ok(true);
            }
            EventKind::Retrying { .. } => held.clear(),
            EventKind::ToolCallStarted { .. }
            | EventKind::TurnCompleted { .. }
            | EventKind::TurnCancelled
            | EventKind::TurnFailed { .. } => {
                let finished = std::mem::take(held);
                if !finished.is_empty() {
                    self.answer_text(&finished)?;
                }
            }
            _ => {}
        }
        Ok(false)
    }
}
