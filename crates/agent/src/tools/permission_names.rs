//! The built-in tools' names and what their permission rules match on, for checking
//! agent.json's rules (`config::permissions`). Kept apart from the tools' module, which
//! imports `Delegate` and through it the sub-agents, whose history builder reads
//! agent.json.

use smallebot_core::rules::permission::ArgumentKind;

use super::delegate_name::DELEGATE;
use super::history::{ReadConversationData, SearchHistory};
use super::mcp_resource::ReadMcpResource;
use super::search_tools::SearchTools;
use super::shell::ExecuteCommand;
use super::skills::{GenerateSkill, ReadSkill};
use super::tasks::{AddTask, CompleteTask, DeleteTask, ListTasks, StartTask, UncompleteTask};
use super::time::GetCurrentTime;
use super::workspace::{AppendFile, CreateDirectory, GrepContent, ListFiles, ReadFile, WriteFile};

/// The workspace file tools, whose rules match the workspace-relative path.
const PATH_TOOLS: [&str; 6] = [
    ReadFile::NAME,
    WriteFile::NAME,
    AppendFile::NAME,
    ListFiles::NAME,
    CreateDirectory::NAME,
    GrepContent::NAME,
];

/// The other built-in tools.
const OTHER_TOOLS: [&str; 15] = [
    GetCurrentTime::NAME,
    ExecuteCommand::NAME,
    SearchHistory::NAME,
    ReadConversationData::NAME,
    ListTasks::NAME,
    AddTask::NAME,
    StartTask::NAME,
    CompleteTask::NAME,
    UncompleteTask::NAME,
    DeleteTask::NAME,
    DELEGATE,
    ReadSkill::NAME,
    GenerateSkill::NAME,
    SearchTools::NAME,
    ReadMcpResource::NAME,
];

/// The names of the built-in tools, for checking the tool names of permission rules
/// (MCP tools, named `mcp__<server>__<tool>` there, are checked by shape).
pub const BUILT_IN_TOOL_NAMES: [&str; PATH_TOOLS.len() + OTHER_TOOLS.len()] = {
    let mut names = [""; PATH_TOOLS.len() + OTHER_TOOLS.len()];
    let mut at = 0;
    while at < names.len() {
        names[at] = if at < PATH_TOOLS.len() {
            PATH_TOOLS[at]
        } else {
            OTHER_TOOLS[at - PATH_TOOLS.len()]
        };
        at += 1;
    }
    names
};

/// What the permission rules of the tool `tool` match its calls on: `ExecuteCommand`
/// its command's words, the workspace file tools their path, `Delegate` the agent,
/// `ReadMcpResource` the resource as `server:uri`.
#[must_use]
pub fn permission_argument(tool: &str) -> ArgumentKind {
    if tool == ExecuteCommand::NAME {
        ArgumentKind::Command
    } else if tool == DELEGATE {
        ArgumentKind::Agent
    } else if tool == ReadMcpResource::NAME {
        ArgumentKind::Resource
    } else if PATH_TOOLS.contains(&tool) {
        ArgumentKind::Path
    } else {
        ArgumentKind::None
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;
    use crate::tools::{Delegate, workspace_tools};

    #[test]
    fn the_built_in_tool_names_cover_the_workspace_tools_once_each() {
        let mut names = BUILT_IN_TOOL_NAMES.to_vec();
        names.sort_unstable();
        names.dedup();
        assert_eq!(
            names.len(),
            BUILT_IN_TOOL_NAMES.len(),
            "a name is listed twice"
        );
        for tool in workspace_tools(PathBuf::from("/ws")) {
            assert!(
                BUILT_IN_TOOL_NAMES.contains(&tool.name()),
                "{}",
                tool.name()
            );
            // Every workspace file tool's rules take a path.
            assert_eq!(
                permission_argument(tool.name()),
                ArgumentKind::Path,
                "{}",
                tool.name()
            );
        }
        let kinds = [
            (ExecuteCommand::NAME, ArgumentKind::Command),
            (Delegate::NAME, ArgumentKind::Agent),
            (GetCurrentTime::NAME, ArgumentKind::None),
            (SearchHistory::NAME, ArgumentKind::None),
            ("mcp__files__read", ArgumentKind::None),
        ];
        for (tool, kind) in kinds {
            assert_eq!(permission_argument(tool), kind, "{tool}");
        }
    }
}
