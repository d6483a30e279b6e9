//! Tools the model may call: the [`Tool`] trait, the [`ToolRegistry`] that implements the
//! application's `ToolExecutor`, argument helpers, and the built-in tools.

mod delegate;
mod history;
mod mcp;
mod registry;
mod shell;
mod skills;
mod tasks;
mod time;
pub mod typed;
mod workspace;

pub use delegate::{Delegate, DelegateArgs};

/// The names of the built-in tools, for checking the tool names of permission rules
/// (MCP tools, named `mcp__<server>__<tool>` there, are checked by shape).
pub const BUILT_IN_TOOL_NAMES: &[&str] = &[
    "GetCurrentTime",
    "ExecuteCommand",
    "SearchHistory",
    "ReadConversationData",
    "ReadFile",
    "WriteFile",
    "AppendFile",
    "ListFiles",
    "CreateDirectory",
    "GrepContent",
    "ListTasks",
    "AddTask",
    "StartTask",
    "CompleteTask",
    "UncompleteTask",
    "DeleteTask",
    "Delegate",
    "ReadSkill",
    "GenerateSkill",
];
pub use history::{
    MatchLine, ReadConversationData, SNIPPET_MAX_CHARS, SearchHistory, SearchMatch, find_matches,
    format_matches, format_matches_with, search_and_format, search_for_people,
};
pub use mcp::McpToolSource;
pub use registry::{Tool, ToolRegistry, ToolSource};
pub use shell::ExecuteCommand;
pub use skills::{
    GenerateSkill, GenerateSkillArgs, READ_SKILL_DEFAULT_LIMIT, ReadSkill, ReadSkillArgs,
    SkillFileArg,
};
pub use smallebot_application::ports::{ArgError, Args};
pub use tasks::{
    AddTask, CompleteTask, DeleteTask, ListTasks, StartTask, UncompleteTask, task_tools,
};
pub use time::GetCurrentTime;
pub use typed::{NoArgs, TypedTool, parameters_schema};
pub use workspace::{
    AppendFile, CreateDirectory, GREP_DEFAULT_RESULTS, GREP_LINE_CHARS, GREP_MAX_FILE_BYTES,
    GREP_MAX_FILES, GREP_MAX_RESULTS, GREP_REGEX_SIZE_LIMIT, GrepContent, LIST_MAX_ENTRIES,
    ListFiles, READ_MAX_BYTES, ReadFile, Resolved, Workspace, WorkspaceError, WriteFile,
    workspace_tools,
};

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use super::*;

    #[test]
    fn the_built_in_tool_names_are_those_of_the_tools() {
        let mut names: Vec<String> = workspace_tools(PathBuf::from("/ws"))
            .iter()
            .map(|tool| tool.name().to_owned())
            .collect();
        names.push(Tool::name(&GetCurrentTime).to_owned());
        names.extend(
            [
                ExecuteCommand::NAME,
                SearchHistory::NAME,
                ReadConversationData::NAME,
                ListTasks::NAME,
                AddTask::NAME,
                StartTask::NAME,
                CompleteTask::NAME,
                UncompleteTask::NAME,
                DeleteTask::NAME,
                Delegate::NAME,
                ReadSkill::NAME,
                GenerateSkill::NAME,
            ]
            .map(str::to_owned),
        );
        let mut listed: Vec<String> = BUILT_IN_TOOL_NAMES
            .iter()
            .map(|n| (*n).to_owned())
            .collect();
        names.sort();
        listed.sort();
        assert_eq!(names, listed);
        // The rules' own lists name built-in tools.
        use smallebot_core::rules::permission::{COMMAND_TOOL, DELEGATE_TOOL, PATH_TOOLS};
        for name in PATH_TOOLS.iter().chain([&COMMAND_TOOL, &DELEGATE_TOOL]) {
            assert!(BUILT_IN_TOOL_NAMES.contains(name), "{name}");
        }
    }
}
