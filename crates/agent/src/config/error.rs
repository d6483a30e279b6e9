//! The one error type of the configuration module.

use std::path::PathBuf;

/// Why a configuration file could not be used, or why no endpoint could be resolved.
///
/// Every variant names what failed and says what to do about it.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ConfigError {
    /// The file is not valid JSON, or a value has the wrong type or an unknown value.
    #[error("{}:{line}:{column}: {message}", file.display())]
    Invalid {
        /// The file that failed to parse.
        file: PathBuf,
        /// 1-based line of the error.
        line: usize,
        /// Column of the error on that line, as reported by `serde_json`.
        column: usize,
        /// What is wrong there (and, where known, what is expected instead).
        message: String,
    },
    /// The file parses but breaks a rule (an unknown default model id, duplicate ids, …).
    #[error("{}: {message}", file.display())]
    Rule {
        /// The file whose content breaks the rule.
        file: PathBuf,
        /// Which rule, and how to fix it.
        message: String,
    },
    /// A model reads its API key from an environment variable that is not set.
    #[error(
        "model `{model_id}` reads its API key from the environment variable {variable}, \
         which is not set: set it (export {variable}=...) or remove \"apiKeyEnv\" from that model"
    )]
    MissingEnv {
        /// The environment variable to set.
        variable: String,
        /// The id of the model that needs it.
        model_id: String,
    },
    /// An environment variable holds a value that cannot be used.
    #[error("{variable}: {message}")]
    Env {
        /// The variable.
        variable: String,
        /// What is wrong and how to fix it.
        message: String,
    },
    /// The file exists but could not be read.
    #[error("cannot read {}: {source}; check that it is a readable UTF-8 file", file.display())]
    Io {
        /// The file that could not be read.
        file: PathBuf,
        /// The underlying I/O error.
        #[source]
        source: std::io::Error,
    },
}
