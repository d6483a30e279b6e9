//! Choosing the chat and compaction endpoints from `models.json` or the environment.

use std::fmt;
use std::path::Path;

use super::ConfigError;
use super::models::{MODELS_FILE, ModelSettings, ModelsConfig, base_url_problem};

/// Environment variable: the API key of the quick-start endpoint.
pub const ENV_OPENAI_API_KEY: &str = "OPENAI_API_KEY";
/// Environment variable: the API root of the quick-start endpoint.
pub const ENV_OPENAI_BASE_URL: &str = "OPENAI_BASE_URL";
/// Environment variable: the chat model id in `models.json`, or the model name of the
/// quick-start endpoint.
pub const ENV_SMALLEBOT_MODEL: &str = "SMALLEBOT_MODEL";
/// Environment variable: whether the quick-start model sees images (`1`, `true` or
/// `yes`; anything else, or unset: it does not).
pub const ENV_OPENAI_SUPPORTS_IMAGES: &str = "OPENAI_SUPPORTS_IMAGES";
/// The API root of the quick-start endpoint when `OPENAI_BASE_URL` is not set.
pub const DEFAULT_BASE_URL: &str = "https://api.openai.com/v1";
/// The model of the quick-start endpoint when `SMALLEBOT_MODEL` is not set.
pub const DEFAULT_MODEL: &str = "gpt-4o-mini";
/// The model id of the quick-start endpoint (the model client's word: it names that
/// model by its model name, not by this id).
pub use smallebot_model_client::ENV_MODEL_ID;

/// Help shown when no endpoint is configured (the host prints it and exits with 2).
pub const HOW_TO_CONFIGURE: &str = "\
No model endpoint is configured. Configure one of these ways:

  1. Environment (OpenAI or any OpenAI-compatible server):
       export OPENAI_API_KEY=sk-...
       optional: OPENAI_BASE_URL (default https://api.openai.com/v1),
                 SMALLEBOT_MODEL (default gpt-4o-mini),
                 OPENAI_SUPPORTS_IMAGES=1 (the model sees attached images)
     For a local Ollama:
       OPENAI_BASE_URL=http://localhost:11434/v1 SMALLEBOT_MODEL=qwen3:8b smallebot chat

  2. A models file, <home>/models.json (home: --home DIR, SMALLEBOT_HOME, else the
     nearest .agents directory here or above, else ~/.smallebot):
       { \"default\": \"local\",
         \"models\": [ { \"id\": \"local\", \"baseUrl\": \"http://localhost:11434/v1\",
                       \"model\": \"qwen3:8b\", \"contextWindow\": 32768 } ] }
     Add \"apiKeyEnv\": \"NAME_OF_VARIABLE\" to a model that needs an API key.

  3. No account and no key: run a model on this machine and point 1. at it. Ollama
     (https://ollama.com): `ollama pull qwen3:8b`, then the line above; llama.cpp's
     `llama-server --port 8080`: OPENAI_BASE_URL=http://localhost:8080/v1; LM Studio's
     server: OPENAI_BASE_URL=http://localhost:1234/v1.
";

/// A model endpoint ready to call: its settings and its API key.
///
/// `Debug` shows whether a key is present, never the key itself.
#[derive(Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// The model's settings.
    pub settings: ModelSettings,
    /// The API key (read from the variable named by `apiKeyEnv`); none: send no key.
    pub api_key: Option<String>,
}

impl fmt::Debug for Endpoint {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Endpoint")
            .field("settings", &self.settings)
            .field("api_key", &self.api_key.as_ref().map(|_| "<redacted>"))
            .finish()
    }
}

/// The endpoints the host uses.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedModels {
    /// The model the conversation runs on.
    pub chat: Endpoint,
    /// The model that writes compression summaries (the chat model unless
    /// `compactionModel` names another).
    pub compaction: Endpoint,
    /// The models a conversation may choose: the chat model first, then every other
    /// model of models.json whose API key variable is set.
    pub choices: Vec<Endpoint>,
}

/// Resolves the chat and compaction endpoints.
///
/// `env` looks up an environment variable (the host passes
/// `|k| std::env::var(k).ok()`; tests pass a map); empty values count as unset.
///
/// - `<home>/models.json` exists: the chat model is `SMALLEBOT_MODEL` if set, else
///   `default`; the compaction model is `compactionModel` if set, else the chat model.
/// - no `models.json`, but `OPENAI_BASE_URL` or `OPENAI_API_KEY` is set: one model with
///   id `"env"`, base URL `OPENAI_BASE_URL` or [`DEFAULT_BASE_URL`], model
///   `SMALLEBOT_MODEL` or [`DEFAULT_MODEL`], key `OPENAI_API_KEY`, 128000 tokens,
///   `o200k_base`, seeing images when `OPENAI_SUPPORTS_IMAGES` is `1`, `true` or `yes`;
///   it is also the compaction model.
/// - neither: `Ok(None)` (print [`HOW_TO_CONFIGURE`]).
///
/// # Errors
/// The errors of [`ModelsConfig::load`]; [`ConfigError::Rule`] when `SMALLEBOT_MODEL`
/// names no model in `models.json`; [`ConfigError::MissingEnv`] when a chosen model's
/// `apiKeyEnv` variable is not set.
pub fn resolve_models(
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<ResolvedModels>, ConfigError> {
    let lookup = |name: &str| env(name).filter(|v| !v.trim().is_empty());
    match ModelsConfig::load(home)? {
        Some(config) => from_file(&config, &home.join(MODELS_FILE), &lookup).map(Some),
        None => {
            if let Some(problem) = lookup(ENV_OPENAI_BASE_URL).and_then(|u| base_url_problem(&u)) {
                return Err(ConfigError::Env {
                    variable: ENV_OPENAI_BASE_URL.to_owned(),
                    message: problem,
                });
            }
            Ok(from_env(&lookup))
        }
    }
}

fn from_file(
    config: &ModelsConfig,
    file: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<ResolvedModels, ConfigError> {
    let chat_id = env(ENV_SMALLEBOT_MODEL).unwrap_or_else(|| config.default.clone());
    let chat = config.model(&chat_id).ok_or_else(|| ConfigError::Rule {
        file: file.to_path_buf(),
        message: format!(
            "{ENV_SMALLEBOT_MODEL}={chat_id} names no model in this file: \
             set it to one of {} or unset it",
            config.ids()
        ),
    })?;
    let compaction = match &config.compaction_model {
        // `ModelsConfig::from_json` checked that the id is listed.
        Some(id) => config.model(id).unwrap_or(chat),
        None => chat,
    };
    let chat = endpoint(chat, env)?;
    let others = config
        .models
        .iter()
        .filter(|m| m.id != chat.settings.id)
        .filter_map(|m| endpoint(m, env).ok());
    let choices = std::iter::once(chat.clone()).chain(others).collect();
    Ok(ResolvedModels {
        chat,
        compaction: endpoint(compaction, env)?,
        choices,
    })
}

fn endpoint(
    settings: &ModelSettings,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Endpoint, ConfigError> {
    let api_key = match &settings.api_key_env {
        Some(variable) => Some(env(variable).ok_or_else(|| ConfigError::MissingEnv {
            variable: variable.clone(),
            model_id: settings.id.clone(),
        })?),
        None => None,
    };
    Ok(Endpoint {
        settings: settings.clone(),
        api_key,
    })
}

fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Option<ResolvedModels> {
    let base_url = env(ENV_OPENAI_BASE_URL);
    let api_key = env(ENV_OPENAI_API_KEY);
    if base_url.is_none() && api_key.is_none() {
        return None;
    }
    let endpoint = Endpoint {
        settings: ModelSettings {
            id: ENV_MODEL_ID.to_owned(),
            base_url: base_url.unwrap_or_else(|| DEFAULT_BASE_URL.to_owned()),
            api_key_env: api_key.as_ref().map(|_| ENV_OPENAI_API_KEY.to_owned()),
            model: env(ENV_SMALLEBOT_MODEL).unwrap_or_else(|| DEFAULT_MODEL.to_owned()),
            context_window: ModelSettings::DEFAULT_CONTEXT_WINDOW,
            context_window_set: false,
            tokenizer: ModelSettings::DEFAULT_TOKENIZER.to_owned(),
            supports_thinking: false,
            reasoning_effort: None,
            max_output_tokens: ModelSettings::DEFAULT_MAX_OUTPUT_TOKENS,
            parallel_requests: None,
            pricing: None,
            supports_images: env(ENV_OPENAI_SUPPORTS_IMAGES).is_some_and(|value| {
                ["1", "true", "yes"].contains(&value.trim().to_ascii_lowercase().as_str())
            }),
        },
        api_key,
    };
    Some(ResolvedModels {
        chat: endpoint.clone(),
        compaction: endpoint.clone(),
        choices: vec![endpoint],
    })
}
