//! Pure domain rules: functions without I/O, each with table-driven unit tests.

pub mod command_policy;
pub mod compression_scope;
pub mod shell_lexer;
mod shell_quoting;
mod shell_redirect;
pub mod shell_syntax;
pub mod truncation;
pub mod workspace_path;
