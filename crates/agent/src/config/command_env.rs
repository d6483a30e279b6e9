//! `commandEnvironment` in agent.json: the variables a command gets besides the base
//! (see [`smallebot_core::rules::child_env`]).
//!
//! ```json
//! { "commandEnvironment": { "pass": ["GITHUB_TOKEN"], "set": { "RUST_LOG": "info" } } }
//! ```

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_core::rules::child_env::invalid_variable_name;

use super::ConfigError;

/// What agent.json adds to every command's environment.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CommandEnvironment {
    /// `pass`: host variables a command gets too (when they are set).
    pub pass: Vec<String>,
    /// `set`: variables a command gets with these values.
    pub set: BTreeMap<String, String>,
}

/// `commandEnvironment` as written.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(super) struct RawCommandEnvironment {
    #[serde(default)]
    pass: Vec<String>,
    #[serde(default)]
    set: BTreeMap<String, String>,
}

impl RawCommandEnvironment {
    /// The settings, each name checked.
    ///
    /// # Errors
    /// [`ConfigError::Rule`] naming `file`, the key and the name: a name that cannot be
    /// a variable's, or a value with a NUL character.
    pub(super) fn into_settings(self, file: &Path) -> Result<CommandEnvironment, ConfigError> {
        let rule = |message: String| ConfigError::Rule {
            file: file.to_path_buf(),
            message,
        };
        for name in &self.pass {
            if let Some(why) = invalid_variable_name(name) {
                return Err(rule(format!(
                    "commandEnvironment.pass: {name:?} is not a variable name ({why})"
                )));
            }
        }
        for (name, value) in &self.set {
            if let Some(why) = invalid_variable_name(name) {
                return Err(rule(format!(
                    "commandEnvironment.set: {name:?} is not a variable name ({why})"
                )));
            }
            if value.contains('\0') {
                return Err(rule(format!(
                    "commandEnvironment.set.{name}: the value contains a NUL character"
                )));
            }
        }
        Ok(CommandEnvironment {
            pass: self.pass,
            set: self.set,
        })
    }
}
