//! Tools the model may call: the [`Tool`] trait, the [`ToolRegistry`] that implements the
//! application's `ToolExecutor`, argument helpers, and the built-in tools.

mod call_view;
mod delegate;
mod delegate_name;
mod duration_text;
mod gate;
mod gate_hooks;
mod gate_user;
mod grants;
mod history;
mod hooks;
mod mcp;
mod mcp_resource;
mod permission_names;
mod registry;
mod search_tools;
mod shell;
mod skills;
mod tasks;
mod time;
mod tool;
pub mod typed;
mod workspace;

pub use call_view::{AskFirst, CallView};
pub use delegate::{Delegate, DelegateArgs};
pub use gate::{DEFAULT_CONFIRMATION_TIMEOUT, PermissionGate};
pub use history::{
    MatchLine, ReadConversationData, SNIPPET_MAX_CHARS, SearchHistory, SearchMatch, find_matches,
    format_matches, format_matches_with, search_and_format, search_for_people,
};
pub use hooks::HookRunner;
pub use mcp::McpToolSource;
pub use mcp_resource::{ReadMcpResource, ReadMcpResourceArgs};
pub use permission_names::{BUILT_IN_TOOL_NAMES, permission_argument};
pub use registry::{ToolRegistry, ToolSource};
pub use search_tools::{SEARCH_TOOLS_DEFAULT_LIMIT, SearchTools, SearchToolsArgs};
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
pub use tool::Tool;
pub use typed::{NoArgs, TypedTool, parameters_schema};
pub use workspace::{
    AppendFile, CreateDirectory, GREP_DEFAULT_RESULTS, GREP_LINE_CHARS, GREP_MAX_FILE_BYTES,
    GREP_MAX_FILES, GREP_MAX_RESULTS, GREP_REGEX_SIZE_LIMIT, GrepContent, LIST_MAX_ENTRIES,
    ListFiles, READ_MAX_BYTES, ReadFile, Resolved, Workspace, WorkspaceError, WriteFile,
    workspace_tools,
};
