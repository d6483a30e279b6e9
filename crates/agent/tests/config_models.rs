//! `models.json` validation and endpoint resolution (file or environment).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::Path;

use smallebot_agent::config::{
    ConfigError, HOW_TO_CONFIGURE, ModelSettings, ModelsConfig, ReasoningEffort, ResolvedModels,
    resolve_models,
};

#[path = "config_models/resolve.rs"]
mod resolve;

const FILE: &str = "/h/models.json";

fn parse(text: &str) -> Result<ModelsConfig, ConfigError> {
    ModelsConfig::from_json(text, Path::new(FILE))
}

const TWO_MODELS: &str = r#"{
  "default": "local",
  "compactionModel": "small",
  "models": [
    { "id": "local", "baseUrl": "http://localhost:11434/v1", "apiKeyEnv": "OLLAMA_KEY",
      "model": "qwen3:8b", "contextWindow": 32768, "tokenizer": "cl100k_base",
      "supportsThinking": true, "reasoningEffort": "high", "maxOutputTokens": 512,
      "parallelRequests": 1 },
    { "id": "small", "baseUrl": "http://localhost:8080/v1", "model": "tiny" }
  ]
}"#;

#[test]
fn full_file_is_read_with_defaults_for_missing_keys() {
    let config = parse(TWO_MODELS).unwrap();
    assert_eq!(config.default, "local");
    assert_eq!(config.compaction_model.as_deref(), Some("small"));
    assert_eq!(
        config.models[0],
        ModelSettings {
            id: "local".into(),
            base_url: "http://localhost:11434/v1".into(),
            api_key_env: Some("OLLAMA_KEY".into()),
            model: "qwen3:8b".into(),
            context_window: 32768,
            tokenizer: "cl100k_base".into(),
            supports_thinking: true,
            reasoning_effort: Some(ReasoningEffort::High),
            supports_images: false,
            max_output_tokens: 512,
            parallel_requests: Some(1),
            context_window_set: true,
            pricing: None,
        }
    );
    let small = config.model("small").unwrap();
    assert_eq!(small.api_key_env, None);
    assert_eq!(small.context_window, 128_000);
    assert_eq!(small.tokenizer, "o200k_base");
    assert!(!small.supports_thinking);
    assert_eq!(small.max_output_tokens, 4096, "the documented default");
    assert_eq!(small.parallel_requests, None);
    assert!(
        !small.context_window_set,
        "the server's window may be taken"
    );
    assert_eq!(config.ids(), "local, small");
}

#[test]
fn small_context_window_is_raised_to_the_minimum() {
    let config = parse(
        r#"{"default": "a", "models": [{"id": "a", "baseUrl": "http://u/v1", "model": "m", "contextWindow": 32}]}"#,
    )
    .unwrap();
    assert_eq!(config.models[0].context_window, 1024);
}

#[test]
fn output_bounds_are_raised_to_the_minimum_and_no_parallel_requests_is_an_error() {
    let one = |extra: &str| {
        parse(&format!(
            r#"{{"models": [{{"id": "a", "baseUrl": "http://x/v1", "model": "m"{extra}}}]}}"#
        ))
    };
    assert_eq!(
        one(r#", "maxOutputTokens": 3"#).unwrap().models[0].max_output_tokens,
        16
    );
    let err = one(r#", "parallelRequests": 0"#).unwrap_err().to_string();
    assert!(
        err.contains("parallelRequests") && err.contains(FILE),
        "{err}"
    );
    let err = one(r#", "maxOutputTokens": -1"#).unwrap_err().to_string();
    assert!(err.contains(FILE) && err.contains("`-1`"), "{err}");
}

#[test]
fn pricing_is_read_in_picos_per_token_and_bad_prices_are_errors() {
    let one = |pricing: &str| {
        parse(&format!(
            r#"{{"models": [{{"id": "a", "baseUrl": "http://x/v1", "model": "m", "pricing": {pricing}}}]}}"#
        ))
    };
    let config = one(
        r#"{"inputPerMTok": 2.5, "cachedInputPerMTok": 1.25, "outputPerMTok": 10, "currency": "USD"}"#,
    )
    .unwrap();
    let pricing = config.models[0].pricing.clone().unwrap();
    assert_eq!(
        (pricing.input, pricing.cached_input, pricing.output),
        (2_500_000, 1_250_000, 10_000_000)
    );
    assert_eq!(pricing.currency, "USD");
    // Without a cached price, cached tokens cost as much as the others.
    let config = one(r#"{"inputPerMTok": 3, "outputPerMTok": 15, "currency": "EUR"}"#).unwrap();
    assert_eq!(
        config.models[0].pricing.as_ref().unwrap().cached_input,
        3_000_000
    );
    let cases: [(&str, &str); 4] = [
        (
            r#"{"inputPerMTok": -1, "outputPerMTok": 1, "currency": "USD"}"#,
            "inputPerMTok",
        ),
        (
            r#"{"inputPerMTok": 1, "outputPerMTok": 1e9, "currency": "USD"}"#,
            "outputPerMTok",
        ),
        (
            r#"{"inputPerMTok": 1, "outputPerMTok": 1, "currency": " "}"#,
            "currency",
        ),
        (r#"{"inputPerMTok": 1, "currency": "USD"}"#, "outputPerMTok"),
    ];
    for (pricing, word) in cases {
        let err = one(pricing).unwrap_err().to_string();
        assert!(err.contains(FILE) && err.contains(word), "{pricing}: {err}");
    }
}

#[test]
fn default_may_be_omitted_only_with_one_model() {
    let one =
        parse(r#"{"models": [{"id": "a", "baseUrl": "http://u/v1", "model": "m"}]}"#).unwrap();
    assert_eq!(one.default, "a");
    let err = parse(
        r#"{"models": [{"id": "a", "baseUrl": "http://u/v1", "model": "m"}, {"id": "b", "baseUrl": "http://u/v1", "model": "m"}]}"#,
    )
    .unwrap_err();
    assert!(matches!(err, ConfigError::Rule { .. }), "{err:?}");
    assert!(err.to_string().contains("\"default\" is missing"), "{err}");
}

/// Each case: file content and words the error must show (besides the file path).
#[test]
fn rule_errors_name_the_file_and_the_problem() {
    let cases: [(&str, &[&str]); 6] = [
        (r#"{"default": "a", "models": []}"#, &["empty"]),
        (
            r#"{"default": "x", "models": [{"id": "a", "baseUrl": "http://u/v1", "model": "m"}]}"#,
            &["`x`", "default", "a"],
        ),
        (
            r#"{"default": "a", "compactionModel": "zz", "models": [{"id": "a", "baseUrl": "http://u/v1", "model": "m"}]}"#,
            &["`zz`", "compactionModel"],
        ),
        (
            r#"{"default": "a", "models": [{"id": "a", "baseUrl": "http://u/v1", "model": "m"}, {"id": "a", "baseUrl": "http://v/v1", "model": "n"}]}"#,
            &["`a`", "twice"],
        ),
        (
            r#"{"default": "a", "models": [{"id": " ", "baseUrl": "http://u/v1", "model": "m"}]}"#,
            &["empty \"id\""],
        ),
        (
            r#"{"default": "a", "models": [{"id": "a", "baseUrl": "", "model": "m"}]}"#,
            &["`a`", "baseUrl"],
        ),
    ];
    for (text, words) in cases {
        let err = parse(text).unwrap_err();
        assert!(matches!(err, ConfigError::Rule { .. }), "{text}: {err:?}");
        let shown = err.to_string();
        assert!(shown.starts_with(FILE), "{shown}");
        for word in words {
            assert!(shown.contains(word), "{text}: `{word}` not in {shown}");
        }
    }
}

#[test]
fn parse_errors_have_positions() {
    // Unknown tokenizer: reported at the value.
    let text = "{\"default\": \"a\", \"models\": [\n  {\"id\": \"a\", \"baseUrl\": \"http://u/v1\", \"model\": \"m\", \"tokenizer\": \"p50k\"}\n]}";
    let err = parse(text).unwrap_err();
    let ConfigError::Invalid { line, message, .. } = &err else {
        panic!("expected Invalid, got {err:?}");
    };
    assert_eq!(*line, 2);
    assert!(
        message.contains("p50k")
            && message.contains("o200k_base")
            && message.contains("cl100k_base"),
        "{message}"
    );
    assert!(err.to_string().starts_with(&format!("{FILE}:2:")), "{err}");

    for text in [
        r#"{"default": "a", "models": [{"id": "a", "baseUrl": "http://u/v1", "model": "m", "contextWindow": "big"}]}"#,
        r#"{"default": "a", "models": [{"id": "a", "baseUrl": "http://u/v1", "model": "m", "contextWindow": -1}]}"#,
        r#"{"default": "a", "models": [{"id": "a", "model": "m"}]}"#,
        r#"{"default": "a"}"#,
        r#"{"default": "a", "models": [}"#,
    ] {
        let err = parse(text).unwrap_err();
        assert!(
            matches!(err, ConfigError::Invalid { line: 1, .. }),
            "{text}: {err:?}"
        );
    }
}

/// Environment variables as name/value pairs.
type Env<'a> = &'a [(&'a str, &'a str)];

fn env(pairs: Env) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |k| map.get(k).cloned()
}

fn resolve(home: &Path, pairs: Env) -> Result<Option<ResolvedModels>, ConfigError> {
    resolve_models(home, &env(pairs))
}

fn home_with_models(text: &str) -> tempfile::TempDir {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("models.json"), text).unwrap();
    home
}

#[test]
fn unknown_keys_in_model_entries_are_errors_and_keys_ignore_case() {
    let file = Path::new(FILE);
    let err = ModelsConfig::from_json(
        r#"{"models": [{"id": "a", "baseUrl": "http://x/v1", "model": "m", "contextwindo": 4096}]}"#,
        file,
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("unknown key \"contextwindo\" in a model of models.json; did you mean \"contextWindow\"?"),
        "{err}"
    );
    let config = ModelsConfig::from_json(
        r#"{"Models": [{"ID": "a", "BaseUrl": "http://x/v1", "Model": "m", "contextwindow": 4096}]}"#,
        file,
    )
    .unwrap();
    assert_eq!(config.models[0].context_window, 4096);
}

#[test]
fn base_urls_without_a_scheme_are_errors_where_they_are_written() {
    let err = ModelsConfig::from_json(
        r#"{"models": [{"id": "local", "baseUrl": "localhost:11434/v1", "model": "m"}]}"#,
        Path::new(FILE),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(
        err,
        "/h/models.json: model `local`: \"baseUrl\" `localhost:11434/v1` has no scheme: write \
         http://localhost:11434/v1 (or https://localhost:11434/v1)"
    );
    let home = tempfile::tempdir().unwrap();
    let err = resolve(home.path(), &[("OPENAI_BASE_URL", "localhost:11434/v1")])
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "OPENAI_BASE_URL: `localhost:11434/v1` has no scheme: write http://localhost:11434/v1 \
         (or https://localhost:11434/v1)"
    );
    let err = resolve(home.path(), &[("OPENAI_BASE_URL", "ftp://x/v1")])
        .unwrap_err()
        .to_string();
    assert!(err.contains("must use http:// or https://"), "{err}");
    assert!(resolve(home.path(), &[("OPENAI_BASE_URL", "HTTP://x/v1")]).is_ok());
}
