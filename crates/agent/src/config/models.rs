//! `models.json`: the model endpoints ([`ModelsConfig`], [`ModelSettings`]).

use std::collections::HashSet;
use std::fmt;
use std::path::{Path, PathBuf};

use schemars::JsonSchema;
use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};

use super::ConfigError;
use super::agent::ReasoningEffort;
use super::json::{parse_keys, read_optional};
use crate::tokenizer::SUPPORTED_ENCODINGS;
use smallebot_core::rules::cost::{Pricing, price_per_token};

/// The name of the models file inside the home directory.
pub const MODELS_FILE: &str = "models.json";

/// One model endpoint from `models.json`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelSettings {
    /// `id`: the name this model is selected by (`default`, `SMALLEBOT_MODEL`).
    pub id: String,
    /// `baseUrl`: the OpenAI-compatible API root, e.g. `http://localhost:11434/v1`.
    pub base_url: String,
    /// `apiKeyEnv`: the environment variable holding the API key (none: no key sent).
    pub api_key_env: Option<String>,
    /// `model`: the model name sent in requests, e.g. `qwen3:8b`.
    pub model: String,
    /// `contextWindow`: the context size in tokens (default 128000, at least 1024).
    pub context_window: u64,
    /// Whether models.json gave `contextWindow`. If not, the context its server reports
    /// (asked at first use) is taken instead of the default.
    pub context_window_set: bool,
    /// `tokenizer`: the tiktoken encoding for counts, `"o200k_base"` (default) or
    /// `"cl100k_base"`.
    pub tokenizer: String,
    /// `supportsThinking`: whether the model reasons when asked (default false); such
    /// a model is sent `reasoning_effort`.
    pub supports_thinking: bool,
    /// `reasoningEffort`: this model's effort (`"low"`, `"medium"`, `"high"`); none:
    /// agent.json's `reasoningEffort`.
    pub reasoning_effort: Option<ReasoningEffort>,
    /// `supportsImages`: whether the model sees images (default false); only such a
    /// model is sent an image attachment, and a turn with one on another model is
    /// refused before anything is stored.
    pub supports_images: bool,
    /// `maxOutputTokens`: the most tokens one answer may have (default 4096, at least
    /// 16), sent as `max_tokens`; a turn's request never gets more than what its prompt
    /// leaves of the context window.
    pub max_output_tokens: u32,
    /// `parallelRequests`: how many requests the server answers at once (llama.cpp's
    /// `-np`); `Some(1)`: side requests such as titles wait until the turn's are done.
    /// None: as the server reports, else any number.
    pub parallel_requests: Option<u32>,
    /// `pricing`: what its tokens cost (`inputPerMTok`, `cachedInputPerMTok`,
    /// `outputPerMTok` per million tokens, `currency`); none: usage shows tokens only.
    pub pricing: Option<Pricing>,
}

impl ModelSettings {
    /// Default of [`ModelSettings::max_output_tokens`].
    pub const DEFAULT_MAX_OUTPUT_TOKENS: u32 = 4096;
    /// Smallest [`ModelSettings::max_output_tokens`]; smaller values are raised to it.
    pub const MIN_MAX_OUTPUT_TOKENS: u32 = 16;
    /// Default of [`ModelSettings::context_window`].
    pub const DEFAULT_CONTEXT_WINDOW: u64 = 128_000;
    /// Smallest [`ModelSettings::context_window`]; smaller values are raised to it.
    pub const MIN_CONTEXT_WINDOW: u64 = 1024;
    /// Default of [`ModelSettings::tokenizer`].
    pub const DEFAULT_TOKENIZER: &'static str = "o200k_base";
}

/// The content of `<home>/models.json`, validated.
///
/// ```json
/// { "default": "local", "compactionModel": "small",
///   "models": [ { "id": "local", "baseUrl": "http://localhost:11434/v1",
///                 "apiKeyEnv": "OLLAMA_KEY", "model": "qwen3:8b",
///                 "contextWindow": 32768, "tokenizer": "o200k_base",
///                 "supportsThinking": false } ] }
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelsConfig {
    /// `default`: the id of the chat model; names a model in [`ModelsConfig::models`].
    /// May be left out of the file only when it lists exactly one model.
    pub default: String,
    /// `compactionModel`: the id of the model that writes summaries (none: the chat
    /// model); names a model in [`ModelsConfig::models`].
    pub compaction_model: Option<String>,
    /// `models`: at least one model, ids unique.
    pub models: Vec<ModelSettings>,
}

impl ModelsConfig {
    /// Loads `<home>/models.json`; `Ok(None)` when the file does not exist.
    ///
    /// # Errors
    /// [`ConfigError::Io`] when the file exists but cannot be read, and the errors of
    /// [`ModelsConfig::from_json`].
    pub fn load(home: &Path) -> Result<Option<Self>, ConfigError> {
        let file = home.join(MODELS_FILE);
        read_optional(&file)?
            .map(|text| Self::from_json(&text, &file))
            .transpose()
    }

    /// Parses and validates the content of a `models.json` (`file` is used in errors).
    ///
    /// # Errors
    /// [`ConfigError::Invalid`] (line and column) for invalid JSON, wrong types, a
    /// missing required key (`models`, `id`, `baseUrl`, `model`) or an unknown
    /// `tokenizer`; [`ConfigError::Rule`] for an empty model list, an empty or
    /// duplicate id, or a `default` / `compactionModel` naming no listed model.
    pub fn from_json(text: &str, file: &Path) -> Result<Self, ConfigError> {
        let raw: RawModelsFile = parse_keys(text, file, "the model list")?;
        raw.validate(file)
    }

    /// The model with this id, if listed.
    #[must_use]
    pub fn model(&self, id: &str) -> Option<&ModelSettings> {
        self.models.iter().find(|m| m.id == id)
    }

    /// The listed ids, comma-separated, for messages.
    #[must_use]
    pub fn ids(&self) -> String {
        list_ids(&self.models)
    }
}

fn list_ids(models: &[ModelSettings]) -> String {
    let ids: Vec<&str> = models.iter().map(|m| m.id.as_str()).collect();
    ids.join(", ")
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawModelsFile {
    default: Option<String>,
    compaction_model: Option<String>,
    models: Vec<RawModel>,
}

#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "a model of models.json"))]
struct RawModel {
    id: String,
    base_url: String,
    api_key_env: Option<String>,
    model: String,
    context_window: Option<u64>,
    #[schemars(with = "Option<String>")]
    tokenizer: Option<EncodingName>,
    supports_thinking: Option<bool>,
    reasoning_effort: Option<ReasoningEffort>,
    supports_images: Option<bool>,
    max_output_tokens: Option<u64>,
    parallel_requests: Option<u64>,
    pricing: Option<RawPricing>,
}

/// models.json `pricing`: prices per million tokens.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "a model's pricing in models.json"))]
struct RawPricing {
    input_per_m_tok: f64,
    cached_input_per_m_tok: Option<f64>,
    output_per_m_tok: f64,
    currency: String,
}

impl RawPricing {
    /// The prices in picos per token; an error names the model and the bad price.
    fn validate(self, model: &str) -> Result<Pricing, String> {
        let price = |key: &str, value: f64| {
            price_per_token(value).ok_or_else(|| {
                format!(
                    "model `{model}`: \"pricing\".\"{key}\" is {value}: give the price per \
                     million tokens, a number from 0 to 1000000"
                )
            })
        };
        let currency = self.currency.trim();
        if currency.is_empty() || currency.len() > 16 || currency.chars().any(char::is_whitespace) {
            return Err(format!(
                "model `{model}`: \"pricing\".\"currency\" is `{}`: give a currency code \
                 such as USD",
                self.currency
            ));
        }
        let input = price("inputPerMTok", self.input_per_m_tok)?;
        Ok(Pricing {
            input,
            cached_input: match self.cached_input_per_m_tok {
                Some(value) => price("cachedInputPerMTok", value)?,
                None => input,
            },
            output: price("outputPerMTok", self.output_per_m_tok)?,
            currency: currency.to_owned(),
        })
    }
}

impl RawModelsFile {
    fn validate(self, file: &Path) -> Result<ModelsConfig, ConfigError> {
        let rule = |message: String| ConfigError::Rule {
            file: file.to_path_buf(),
            message,
        };
        if self.models.is_empty() {
            return Err(rule(
                "\"models\" is empty: list at least one model (id, baseUrl, model)".into(),
            ));
        }
        let models: Vec<ModelSettings> = self
            .models
            .into_iter()
            .map(|raw| raw.into_settings(file))
            .collect::<Result<_, _>>()?;
        let mut seen = HashSet::new();
        if let Some(dup) = models.iter().find(|m| !seen.insert(m.id.as_str())) {
            return Err(rule(format!(
                "model id `{}` is listed twice: give each model its own id",
                dup.id
            )));
        }
        let named = |key: &str, id: &str| -> Result<(), ConfigError> {
            if models.iter().any(|m| m.id == id) {
                Ok(())
            } else {
                Err(rule(format!(
                    "\"{key}\" is `{id}`, but no model has that id: use one of {}",
                    list_ids(&models)
                )))
            }
        };
        let default = match (self.default, models.as_slice()) {
            (Some(id), _) => id,
            (None, [only]) => only.id.clone(),
            (None, _) => {
                return Err(rule(format!(
                    "\"default\" is missing: set it to the id of the chat model, one of {}",
                    list_ids(&models)
                )));
            }
        };
        named("default", &default)?;
        if let Some(id) = &self.compaction_model {
            named("compactionModel", id)?;
        }
        Ok(ModelsConfig {
            default,
            compaction_model: self.compaction_model,
            models,
        })
    }
}

impl RawModel {
    fn into_settings(self, file: &Path) -> Result<ModelSettings, ConfigError> {
        let rule = |message: String| ConfigError::Rule {
            file: PathBuf::from(file),
            message,
        };
        if self.id.trim().is_empty() {
            return Err(rule("a model has an empty \"id\": give it a name".into()));
        }
        for (key, value) in [("baseUrl", &self.base_url), ("model", &self.model)] {
            if value.trim().is_empty() {
                return Err(rule(format!(
                    "model `{}` has an empty \"{key}\": fill it in",
                    self.id
                )));
            }
        }
        if let Some(problem) = base_url_problem(&self.base_url) {
            return Err(rule(format!("model `{}`: \"baseUrl\" {problem}", self.id)));
        }
        let context_window = self
            .context_window
            .unwrap_or(ModelSettings::DEFAULT_CONTEXT_WINDOW);
        if context_window < ModelSettings::MIN_CONTEXT_WINDOW {
            tracing::warn!(
                file = %file.display(),
                model = %self.id,
                context_window,
                "contextWindow is below the minimum; using {}",
                ModelSettings::MIN_CONTEXT_WINDOW
            );
        }
        let max_output_tokens =
            self.max_output_tokens
                .map_or(ModelSettings::DEFAULT_MAX_OUTPUT_TOKENS, |tokens| {
                    u32::try_from(tokens)
                        .unwrap_or(u32::MAX)
                        .max(ModelSettings::MIN_MAX_OUTPUT_TOKENS)
                });
        let parallel_requests = match self.parallel_requests {
            Some(0) => {
                return Err(rule(format!(
                    "model `{}`: \"parallelRequests\" is 0: give the number of requests its \
                     server answers at once (1 for a one-slot llama.cpp), or leave it out",
                    self.id
                )));
            }
            Some(n) => Some(u32::try_from(n).unwrap_or(u32::MAX)),
            None => None,
        };
        let pricing = match self.pricing {
            Some(raw) => Some(raw.validate(&self.id).map_err(rule)?),
            None => None,
        };
        Ok(ModelSettings {
            pricing,
            max_output_tokens,
            parallel_requests,
            api_key_env: self.api_key_env.filter(|v| !v.trim().is_empty()),
            context_window: context_window.max(ModelSettings::MIN_CONTEXT_WINDOW),
            context_window_set: self.context_window.is_some(),
            tokenizer: self.tokenizer.map_or_else(
                || ModelSettings::DEFAULT_TOKENIZER.to_owned(),
                |name| name.0,
            ),
            supports_thinking: self.supports_thinking.unwrap_or(false),
            reasoning_effort: self.reasoning_effort,
            supports_images: self.supports_images.unwrap_or(false),
            id: self.id,
            base_url: self.base_url,
            model: self.model,
        })
    }
}

/// What is wrong with an endpoint's base URL, if anything: it must start with
/// `http://` or `https://` (a request to `localhost:11434/v1` fails only later, with an
/// unhelpful "builder error").
pub(crate) fn base_url_problem(url: &str) -> Option<String> {
    let url = url.trim();
    let lower = url.to_ascii_lowercase();
    if lower.starts_with("http://") || lower.starts_with("https://") {
        return None;
    }
    Some(if url.contains("://") {
        format!("`{url}` must use http:// or https://")
    } else {
        format!("`{url}` has no scheme: write http://{url} (or https://{url})")
    })
}

/// A tokenizer name checked against [`SUPPORTED_ENCODINGS`] while parsing, so that an
/// unknown name is reported at its line and column.
#[derive(Debug)]
struct EncodingName(String);

impl<'de> Deserialize<'de> for EncodingName {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_str(EncodingNameVisitor)
    }
}

struct EncodingNameVisitor;

impl Visitor<'_> for EncodingNameVisitor {
    type Value = EncodingName;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "one of the tokenizers {}",
            SUPPORTED_ENCODINGS.join(", ")
        )
    }

    fn visit_str<E: de::Error>(self, value: &str) -> Result<EncodingName, E> {
        if SUPPORTED_ENCODINGS.contains(&value) {
            Ok(EncodingName(value.to_owned()))
        } else {
            Err(E::invalid_value(de::Unexpected::Str(value), &self))
        }
    }
}
