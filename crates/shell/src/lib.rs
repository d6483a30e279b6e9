//! # smallebot-shell
//!
//! The shell analyzer: one parser for shell command lines, three readers of its result.
//! A pure leaf library (no I/O; only `thiserror`): the command policy and written-file
//! detection are no layer's concept, so they live here rather than in
//! `smallebot-core`; the agent's `ExecuteCommand` tool and its configuration read them.
//!
//! - **The parser** (`syntax`, crate-private): a POSIX-`sh` tokenizer (quotes, escapes,
//!   `$` forms, substitutions, redirections, here-documents) and a parser into simple
//!   commands, pipelines and function definitions. Nothing else in the workspace tokenizes
//!   shell text.
//! - **Shared command knowledge** (`wrappers`, crate-private): the shells that run
//!   `-c` scripts, the wrappers that run another command (`sudo`, `env`, `nice`,
//!   `nohup`, `time`, `command`, `exec`, `timeout`, `stdbuf`, `xargs`, …), the other
//!   ways a script is nested (`eval`, `su -c`, `watch`, `env -S`, a shell fed a
//!   here-document), and how deep nested scripts are followed.
//! - **Reader 1, the command policy** ([`policy`]): the blacklist and whitelist that
//!   decide whether a command may run ([`CommandPolicy`], [`DEFAULT_COMMAND_BLACKLIST`]).
//! - **Reader 2, written files** ([`written_files`], [`resolve_written_path`]): which
//!   files a command line (or a file tool's path argument) writes, for the task list.
//! - **Reader 3, command words** ([`command_words`]): the normalized words of each
//!   simple command a line runs, what permission rules are matched on.
//!
//! Because the readers see the same parse and the same wrappers, what the policy
//! looks through (`sudo bash -c '…'`) written-file detection looks through too.
//!
//! # Written files
//!
//! [`written_files`] returns the files a command line writes, decided from the text
//! alone (no filesystem access): output-redirection targets, `tee` and `touch` files,
//! `mkdir` directories, `cp`/`mv` destinations (`dir/<name>` for a directory
//! destination: `-t DIR`, `--target-directory=DIR` or a trailing `/`), and files that
//! `python -c` code or a here-document fed to `python` opens with mode `w`, `a` or `x`.
//! Nested scripts are read the same way, and `cd` moves the working directory for the
//! commands after it. Words whose value depends on an expansion or a glob (`$OUT`,
//! `*.txt`), `/dev/…` targets and fd duplications (`2>&1`) are skipped; paths are
//! resolved lexically against `working_directory`, normalized (`.` and `..` folded)
//! and de-duplicated in first-seen order.
//!
//! ```
//! use smallebot_shell::written_files;
//! assert_eq!(
//!     written_files("cd out && sudo tee a.log < in.txt > /dev/null; cp x.csv y/", "/ws"),
//!     ["/ws/out/a.log", "/ws/out/y/x.csv"]
//! );
//! ```
//!
//! [`resolve_written_path`] resolves one path argument of a file tool the same way;
//! `None` for an empty path, `-`, a `/dev/…` path or one containing NUL.
//!
//! ```
//! use smallebot_shell::resolve_written_path;
//! assert_eq!(
//!     resolve_written_path("/ws", "data/./raw/").as_deref(),
//!     Some("/ws/data/raw")
//! );
//! assert_eq!(resolve_written_path("/ws", "/dev/null"), None);
//! ```

mod command_words;
mod piped_text;
pub mod policy;
mod syntax;
mod wrappers;
mod written_files;

pub use command_words::{
    CommandWords, CommandWordsError, ShellWord, command_words, one_command_words,
};
pub use policy::{
    CommandPolicy, CommandVerdict, DEFAULT_COMMAND_BLACKLIST, PolicyError, default_blacklist,
};
pub use written_files::{resolve_written_path, written_files};

#[cfg(test)]
mod tests;
