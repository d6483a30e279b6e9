//! `smallebot models` as text: each model, what models.json says about it and what its
//! server reported, with a warning when they disagree.

use smallebot_agent::config::{ENV_MODEL_ID, SurveyedModel};

/// The lines of one model.
pub fn describe(model: &SurveyedModel) -> Vec<String> {
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
    // The environment's model has no id a person chose: say where it comes from.
    let (name, source) = if s.id == ENV_MODEL_ID {
        (
            format!(
                "{} at {} (from the environment: no models.json)",
                s.model, s.base_url
            ),
            "settings",
        )
    } else {
        (
            format!("{}  {} at {}", s.id, s.model, s.base_url),
            "models.json",
        )
    };
    let mut lines = vec![
        format!("{mark}{name}"),
        format!(
            "    {source}: {window}, maxOutputTokens {}, {parallel}",
            s.max_output_tokens
        ),
    ];
    match &model.report {
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
