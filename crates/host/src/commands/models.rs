//! `smallebot models`: each model of models.json (or the one the environment names),
//! what models.json says about it, and what its server reports about itself — its
//! context per request and how many requests it answers at once — with a warning when
//! they disagree (`smallebot_agent::config::survey_models`, shown by the terminal's
//! `models_text`).

use smallebot_agent::assembly::Home;
use smallebot_agent::config::survey_models;
use smallebot_terminal::models_text::describe;

use crate::error::HostError;

/// Lists the models with what their servers reported.
pub async fn run(home: &Home) -> Result<(), HostError> {
    let env = |name: &str| std::env::var(name).ok();
    let Some(models) = survey_models(home.root(), &env).await? else {
        return Err(HostError::NoEndpoint);
    };
    for model in &models {
        for line in describe(model) {
            outln!("{line}")?;
        }
    }
    Ok(())
}
