//! [`HookEvent`]: the points of a turn where hooks run.

/// An event hooks can be configured for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookEvent {
    /// A conversation starts (`run`, `chat`, a served conversation's first turn).
    SessionStart,
    /// The person sent a prompt; before anything goes to the model.
    UserPromptSubmit,
    /// A tool call passed the rules; before it is asked about and run.
    PreToolUse,
    /// A tool call ran.
    PostToolUse,
    /// The model answered without tool calls: the turn is about to end.
    Stop,
    /// A sub-agent's turn is about to end.
    SubagentStop,
    /// Before the conversation is compressed.
    PreCompact,
    /// A conversation ends (the program stops running it).
    SessionEnd,
}

impl HookEvent {
    /// Every event, in the order of a turn.
    pub const ALL: [Self; 8] = [
        Self::SessionStart,
        Self::UserPromptSubmit,
        Self::PreToolUse,
        Self::PostToolUse,
        Self::Stop,
        Self::SubagentStop,
        Self::PreCompact,
        Self::SessionEnd,
    ];

    /// Its name in hooks.json and in a hook's input (`PreToolUse`).
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::SessionStart => "SessionStart",
            Self::UserPromptSubmit => "UserPromptSubmit",
            Self::PreToolUse => "PreToolUse",
            Self::PostToolUse => "PostToolUse",
            Self::Stop => "Stop",
            Self::SubagentStop => "SubagentStop",
            Self::PreCompact => "PreCompact",
            Self::SessionEnd => "SessionEnd",
        }
    }

    /// The event called `name` (exactly, as Claude Code spells it).
    #[must_use]
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|event| event.name() == name)
    }

    /// Whether its entries' `matcher` selects tools (`PreToolUse`, `PostToolUse`);
    /// the other events run every entry.
    #[must_use]
    pub fn matches_tools(self) -> bool {
        matches!(self, Self::PreToolUse | Self::PostToolUse)
    }
}

impl std::fmt::Display for HookEvent {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
