//! What the permission gate sees of a call ([`CallView`]) and when a tool wants the
//! person asked ([`AskFirst`]): what every tool gives the gate, kept apart from the
//! gate so that tools need not import it.

use smallebot_core::rules::permission::{CallArgument, CallSubject};

/// When a tool wants the person asked, besides what the rules say.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum AskFirst {
    /// Only when the rules say `ask`.
    #[default]
    WhenRulesSay,
    /// Also when no rule matched and the default would allow it (an MCP tool its
    /// server marks destructive, or configured with `confirm`; `ExecuteCommand` with
    /// `requireCommandConfirmation`).
    UnlessARuleAllows,
    /// The tool asks the person itself, with what it alone knows (`ExecuteCommand`
    /// about to run without the sandbox): the gate never asks as well, but a deny
    /// rule still refuses the call.
    Itself,
}

/// What the gate sees of a call: what the rules are matched on, how the call is shown
/// to the person, and whether the tool wants the person asked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CallView {
    /// What the rules are matched on.
    pub subject: CallSubject,
    /// The call as the person is shown it (`None`: the tool's name and its arguments).
    pub shown: Option<String>,
    /// Whether the tool wants the person asked.
    pub ask_first: AskFirst,
}

impl CallView {
    /// A view of a call seen as `subject`, shown by name and arguments, asked about
    /// when the rules say so.
    #[must_use]
    pub fn new(subject: CallSubject) -> Self {
        Self {
            subject,
            shown: None,
            ask_first: AskFirst::WhenRulesSay,
        }
    }

    /// The same view, the call shown to the person as `shown`.
    #[must_use]
    pub fn shown(mut self, shown: impl Into<String>) -> Self {
        self.shown = Some(shown.into());
        self
    }

    /// The same view, with the tool's own wish to be asked.
    #[must_use]
    pub fn ask_first(mut self, ask_first: AskFirst) -> Self {
        self.ask_first = ask_first;
        self
    }
}

/// What a call is called in results: `command` for a command line, else `call of X`.
pub(super) fn what(subject: &CallSubject) -> String {
    match subject.argument {
        CallArgument::Commands(_) | CallArgument::UnreadableCommand(_) => "command".to_owned(),
        _ => format!("call of {}", subject.tool),
    }
}
