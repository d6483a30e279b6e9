//! The conversation task list ("the plan"), pure part (docs/design.md §6).
//!
//! - [`model`]: the serde model of `.agents/tasks/<conversation>.json`, reading the
//!   original SmallEBot app's smaller format too.
//! - [`graph`]: dependency cycle checks.
//! - [`ops`]: add / start / complete / uncomplete / block / delete with dependency
//!   checks; a refused operation changes nothing.
//! - [`results`]: the task tools' exact result strings.
//! - [`recording`]: appending finished tool calls to the active task.
//!
//! Which files a call wrote is declared by its tool (the `smallebot-shell` crate's
//! `written_files` for shell command lines); this module never looks at tool names.
//! - [`display`]: the plan as text.
//! - [`store`]: the port where task lists are kept.
//!
//! ```
//! use smallebot_core::tasks::{TaskList, format_plan};
//! let mut list = TaskList::default();
//! list.add("Load data", "", &[]).unwrap();
//! list.add("Report", "", &["1".to_owned()]).unwrap();
//! assert!(list.start("2").is_err(), "task 1 is not done yet");
//! list.start("1").unwrap();
//! assert_eq!(
//!     format_plan(&list),
//!     "Plan:\nProgress: 0/2 (0.0%)\n  1: [→] Load data\n  2: [ ] Report (depends on: [1])"
//! );
//! ```

pub mod display;
pub mod graph;
pub mod model;
pub mod ops;
pub mod recording;
pub mod results;
pub mod store;

pub use display::{format_plan, format_progress, progress_line, tool_counts};
pub use model::{Task, TaskList, TaskStatus, ToolHistoryEntry};
pub use ops::TaskError;
pub use recording::{RESULT_LIMIT_CHARS, TRUNCATED_SUFFIX, record_tool_call, truncate_result};
pub use results::{
    CORRUPT_TASK_FILE, NO_CONVERSATION_CONTEXT, added_result, error_result, list_result, ok_result,
    ok_task_result,
};
pub use store::{TaskEdit, TaskStore, TaskStoreError, TaskUpdate};

#[cfg(test)]
mod test_fixtures;
