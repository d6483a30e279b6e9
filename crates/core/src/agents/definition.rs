//! An agent definition as read from its file.

/// Which tools an agent may use.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentTools {
    /// `tools` absent: every tool the parent has.
    Inherit,
    /// `tools` given: only these of the parent's tools (names the parent lacks give
    /// nothing).
    Only(Vec<String>),
}

/// Which model an agent runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AgentModel {
    /// `model: inherit` or absent: the parent's.
    Inherit,
    /// A models.json id.
    Id(String),
}

/// The sandbox an agent's commands run in (never wider than the parent's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum AgentSandbox {
    /// `read-only`: commands write nothing in the workspace.
    ReadOnly,
    /// `workspace-write`: commands may write in the workspace.
    WorkspaceWrite,
}

impl AgentSandbox {
    /// `read-only` or `workspace-write`.
    #[must_use]
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ReadOnly => "read-only",
            Self::WorkspaceWrite => "workspace-write",
        }
    }
}

/// An agent definition that follows the format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AgentDefinition {
    /// `name`: lowercase letters, digits and hyphens, equal to the file's name.
    pub name: String,
    /// `description`: when to use it (shown to the model that may delegate).
    pub description: String,
    /// `tools`.
    pub tools: AgentTools,
    /// `model`.
    pub model: AgentModel,
    /// `sandbox`, if given (`None`: the parent's).
    pub sandbox: Option<AgentSandbox>,
    /// `maxToolSteps`, if given (`None`: the parent's limit).
    pub max_tool_steps: Option<u32>,
    /// The Markdown after the front matter: the agent's system prompt.
    pub prompt: String,
}

impl AgentDefinition {
    /// The built-in `general` agent: the parent's tools, model and sandbox.
    #[must_use]
    pub fn general() -> Self {
        Self {
            name: super::GENERAL_AGENT.to_owned(),
            description: "A general-purpose agent with the same tools and model as yours. \
                          Use it for an independent part of a task, a broad search or \
                          reading that would fill your own context."
                .to_owned(),
            tools: AgentTools::Inherit,
            model: AgentModel::Inherit,
            sandbox: None,
            max_tool_steps: None,
            prompt: "You are a sub-agent: another agent handed you the task below. Work on \
                     it with your tools until it is done, then answer with what you found \
                     or did, complete and self-contained: your answer is all the other \
                     agent sees of your work."
                .to_owned(),
        }
    }
}
