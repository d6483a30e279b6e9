//! The models a home can talk to, each with what its server reports about itself
//! (`smallebot models`): every model of models.json, or the one the environment names.
//! The servers are asked at once.

use std::path::Path;

use smallebot_model_client::{ChatEndpoint, ServerReport, ask_server};

use super::{ConfigError, ModelSettings, ModelsConfig, resolve_models};

/// One model with what its server said.
#[derive(Debug, Clone)]
pub struct SurveyedModel {
    /// Its settings (models.json's, or the environment's).
    pub settings: ModelSettings,
    /// Whether it is the default chat model.
    pub default: bool,
    /// What its server reported about its limits; `None` when no probe answered.
    pub report: Option<ServerReport>,
}

/// Every model of `home`'s models.json (or the environment's one model), each with its
/// server's report. `env` looks up environment variables (API keys). `None` when no
/// model is configured at all.
///
/// # Errors
/// models.json is invalid.
pub async fn survey_models(
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Vec<SurveyedModel>>, ConfigError> {
    let Some(listed) = listed_models(home, env)? else {
        return Ok(None);
    };
    let mut asked = tokio::task::JoinSet::new();
    for (index, (settings, api_key, _)) in listed.iter().enumerate() {
        let mut endpoint = ChatEndpoint::new(&settings.base_url, &settings.model);
        endpoint.api_key.clone_from(api_key);
        asked.spawn(async move { (index, ask_server(&endpoint).await) });
    }
    let mut reports = vec![None; listed.len()];
    while let Some(answer) = asked.join_next().await {
        // A task that panicked leaves its model without a report.
        if let Ok((index, report)) = answer {
            reports[index] = report;
        }
    }
    Ok(Some(
        listed
            .into_iter()
            .zip(reports)
            .map(|((settings, _, default), report)| SurveyedModel {
                settings,
                default,
                report,
            })
            .collect(),
    ))
}

/// The models to ask, each with its API key and whether it is the default.
type Listed = (ModelSettings, Option<String>, bool);

/// The models of models.json, or the environment's one; `None` when there is none.
fn listed_models(
    home: &Path,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<Option<Vec<Listed>>, ConfigError> {
    let Some(resolved) = resolve_models(home, env)? else {
        return Ok(None);
    };
    let key = |settings: &ModelSettings| {
        settings
            .api_key_env
            .as_deref()
            .and_then(env)
            .filter(|v| !v.trim().is_empty())
    };
    Ok(Some(match ModelsConfig::load(home)? {
        Some(config) => config
            .models
            .into_iter()
            .map(|settings| {
                let default = settings.id == resolved.chat.settings.id;
                (settings.clone(), key(&settings), default)
            })
            .collect(),
        None => vec![(resolved.chat.settings, resolved.chat.api_key, true)],
    }))
}
