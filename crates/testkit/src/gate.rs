//! [`Gate`]: a latch a test opens to release responses that wait for it.

use std::sync::Arc;

use tokio::sync::watch;

/// A latch shared between a test and the responses scripted with
/// [`ScriptedResponse::hold_until`](crate::ScriptedResponse::hold_until): those wait
/// before their headers until the test calls [`Gate::open`]. Once open it stays open.
///
/// Use it instead of a long delay when a test must be sure something happened (other
/// processes gave up, a page showed a spinner) while a request is still in flight.
#[derive(Debug, Clone)]
pub struct Gate(Arc<watch::Sender<bool>>);

impl Gate {
    /// A closed gate.
    pub fn new() -> Self {
        Self(Arc::new(watch::Sender::new(false)))
    }

    /// Open the gate: every held response goes on, and later ones do not wait.
    pub fn open(&self) {
        self.0.send_replace(true);
    }

    /// Whether [`Gate::open`] was called.
    pub fn is_open(&self) -> bool {
        *self.0.borrow()
    }

    /// Wait until the gate is open.
    pub(crate) async fn opened(&self) {
        let mut receiver = self.0.subscribe();
        // The sender lives in `self`, so waiting cannot fail on a dropped sender.
        let _ = receiver.wait_for(|open| *open).await;
    }
}

impl Default for Gate {
    fn default() -> Self {
        Self::new()
    }
}

/// Two handles are equal when they are the same gate.
impl PartialEq for Gate {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for Gate {}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[tokio::test]
    async fn waiters_go_on_when_the_gate_opens_and_later_ones_do_not_wait() {
        let gate = Gate::new();
        let held = tokio::spawn({
            let gate = gate.clone();
            async move { gate.opened().await }
        });
        tokio::time::sleep(Duration::from_millis(20)).await;
        assert!(!held.is_finished());
        assert!(!gate.is_open());
        gate.open();
        tokio::time::timeout(Duration::from_secs(5), held)
            .await
            .unwrap()
            .unwrap();
        tokio::time::timeout(Duration::from_secs(5), gate.opened())
            .await
            .unwrap();
        assert_eq!(gate, gate.clone());
        assert_ne!(gate, Gate::new());
    }
}
