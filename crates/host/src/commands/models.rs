//! `smallebot models`: each model of models.json (or the one the environment names),
//! what models.json says about it, and what its server reports about itself — its
//! context per request and how many requests it answers at once — with a warning when
//! they disagree. The servers are asked at once.

use smallebot_agent::assembly::Home;
use smallebot_agent::config::{ModelSettings, ModelsConfig, resolve_models};
use smallebot_model_client::{ChatEndpoint, ServerReport, ask_server};

use crate::error::HostError;

/// One model as listed: its settings, whether it is the default, its API key.
struct Listed {
    settings: ModelSettings,
    default: bool,
    api_key: Option<String>,
}

/// Lists the models with what their servers reported.
pub async fn run(home: &Home) -> Result<(), HostError> {
    let env = |name: &str| std::env::var(name).ok();
    let Some(resolved) = resolve_models(home.root(), &env)? else {
        return Err(HostError::NoEndpoint);
    };
    let key = |settings: &ModelSettings| {
        settings
            .api_key_env
            .as_deref()
            .and_then(|var| std::env::var(var).ok())
            .filter(|v| !v.trim().is_empty())
    };
    let listed: Vec<Listed> = match ModelsConfig::load(home.root())? {
        Some(config) => config
            .models
            .into_iter()
            .map(|settings| Listed {
                default: settings.id == resolved.chat.settings.id,
                api_key: key(&settings),
                settings,
            })
            .collect(),
        None => vec![Listed {
            default: true,
            api_key: resolved.chat.api_key.clone(),
            settings: resolved.chat.settings,
        }],
    };
    let mut asked = tokio::task::JoinSet::new();
    for (index, model) in listed.iter().enumerate() {
        let mut endpoint = ChatEndpoint::new(&model.settings.base_url, &model.settings.model);
        endpoint.api_key.clone_from(&model.api_key);
        asked.spawn(async move { (index, ask_server(&endpoint).await) });
    }
    let mut reports = vec![None; listed.len()];
    while let Some(answer) = asked.join_next().await {
        // A task that panicked leaves its model without a report.
        if let Ok((index, report)) = answer {
            reports[index] = report;
        }
    }
    for (model, report) in listed.iter().zip(&reports) {
        for line in describe(model, report.as_ref()) {
            outln!("{line}")?;
        }
    }
    Ok(())
}

/// The lines of one model.
fn describe(model: &Listed, report: Option<&ServerReport>) -> Vec<String> {
    let s = &model.settings;
    let mark = if model.default { "* " } else { "  " };
    let window = if s.context_window_set {
        format!("contextWindow {}", s.context_window)
    } else {
        format!(
            "contextWindow not set (the server's, else {})",
            s.context_window
        )
    };
    let parallel = s.parallel_requests.map_or_else(
        || "parallelRequests not set".to_owned(),
        |n| format!("parallelRequests {n}"),
    );
    let mut lines = vec![
        format!("{mark}{}  {} at {}", s.id, s.model, s.base_url),
        format!(
            "    models.json: {window}, maxOutputTokens {}, {parallel}",
            s.max_output_tokens
        ),
    ];
    match report {
        Some(report) => {
            lines.push(format!("    server: {}", report.describe()));
            if let Some(warning) = s
                .context_window_set
                .then(|| report.window_warning(&s.id, s.context_window))
                .flatten()
            {
                lines.push(format!("    warning: {warning}"));
            }
        }
        None => lines.push(
            "    server: said nothing about its limits (no llama.cpp /props, vLLM /v1/models \
             or Ollama /api/show answered)"
                .to_owned(),
        ),
    }
    lines
}
