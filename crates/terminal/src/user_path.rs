//! Paths a person types for a file of theirs (one to attach, one to export to): a
//! leading `~` is their home directory, as in their shell; echoed back with their
//! control characters shown.

use std::path::{Path, PathBuf};

use smallebot_core::rules::pasted_path::expand_home;
use smallebot_core::rules::terminal_text::escape_line;

/// `typed` with a leading `~` or `~/` replaced by `$HOME` (as typed when `HOME` is not
/// set or the path is not valid UTF-8).
pub fn user_path(typed: &Path) -> PathBuf {
    let (Some(text), Ok(home)) = (typed.to_str(), std::env::var("HOME")) else {
        return typed.to_path_buf();
    };
    PathBuf::from(expand_home(text, Some(&home)))
}

/// A path a person gave, as an error message echoes it (control characters shown).
pub fn shown(path: &Path) -> String {
    escape_line(&path.display().to_string()).into_owned()
}
