//! `models.json` validation and endpoint resolution (file or environment).
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::HashMap;
use std::path::Path;

use smallebot_agent::config::{
    ConfigError, HOW_TO_CONFIGURE, ModelSettings, ModelsConfig, ReasoningEffort, ResolvedModels,
    resolve_models,
};

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
      "supportsThinking": true, "reasoningEffort": "high" },
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
        }
    );
    let small = config.model("small").unwrap();
    assert_eq!(small.api_key_env, None);
    assert_eq!(small.context_window, 128_000);
    assert_eq!(small.tokenizer, "o200k_base");
    assert!(!small.supports_thinking);
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
fn file_models_resolve_with_keys_and_compaction_model() {
    let home = home_with_models(TWO_MODELS);
    let resolved = resolve(
        home.path(),
        &[("OLLAMA_KEY", "k1"), ("OPENAI_API_KEY", "ignored")],
    )
    .unwrap()
    .unwrap();
    assert_eq!(resolved.chat.settings.id, "local");
    assert_eq!(resolved.chat.api_key.as_deref(), Some("k1"));
    assert_eq!(resolved.compaction.settings.id, "small");
    assert_eq!(resolved.compaction.api_key, None);
}

#[test]
fn smallebot_model_selects_the_chat_model() {
    let home = home_with_models(TWO_MODELS);
    let resolved = resolve(home.path(), &[("SMALLEBOT_MODEL", "small")])
        .unwrap()
        .unwrap();
    assert_eq!(resolved.chat.settings.id, "small");

    let err = resolve(home.path(), &[("SMALLEBOT_MODEL", "gpt-9")]).unwrap_err();
    let shown = err.to_string();
    assert!(
        shown.contains("gpt-9") && shown.contains("local, small") && shown.contains("models.json"),
        "{shown}"
    );
}

#[test]
fn choices_are_the_chat_model_first_then_every_model_with_its_key() {
    let home = home_with_models(TWO_MODELS);
    let ids = |resolved: &ResolvedModels| {
        resolved
            .choices
            .iter()
            .map(|c| c.settings.id.clone())
            .collect::<Vec<_>>()
    };
    let all = resolve(home.path(), &[("OLLAMA_KEY", "k1")])
        .unwrap()
        .unwrap();
    assert_eq!(ids(&all), ["local", "small"]);
    assert_eq!(all.choices[0].api_key.as_deref(), Some("k1"));
    let chosen = resolve(
        home.path(),
        &[("OLLAMA_KEY", "k1"), ("SMALLEBOT_MODEL", "small")],
    )
    .unwrap()
    .unwrap();
    assert_eq!(ids(&chosen), ["small", "local"]);
    // A model whose key variable is not set cannot be chosen (and is no error while
    // it is not the chat model).
    let keyless = resolve(home.path(), &[("SMALLEBOT_MODEL", "small")])
        .unwrap()
        .unwrap();
    assert_eq!(ids(&keyless), ["small"]);
}

#[test]
fn compaction_defaults_to_the_chat_model() {
    let home =
        home_with_models(r#"{"models": [{"id": "a", "baseUrl": "http://u/v1", "model": "m"}]}"#);
    let resolved = resolve(home.path(), &[]).unwrap().unwrap();
    assert_eq!(resolved.compaction, resolved.chat);
}

#[test]
fn missing_api_key_variable_says_which_to_set() {
    let home = home_with_models(TWO_MODELS);
    for pairs in [&[][..], &[("OLLAMA_KEY", "")][..]] {
        let err = resolve(home.path(), pairs).unwrap_err();
        match &err {
            ConfigError::MissingEnv { variable, model_id } => {
                assert_eq!(
                    (variable.as_str(), model_id.as_str()),
                    ("OLLAMA_KEY", "local")
                );
            }
            other => panic!("expected MissingEnv, got {other:?}"),
        }
        assert!(err.to_string().contains("export OLLAMA_KEY="), "{err}");
    }
}

#[test]
fn invalid_models_file_is_an_error_even_with_env_set() {
    let home = home_with_models("{ \"models\": ");
    let err = resolve(home.path(), &[("OPENAI_API_KEY", "sk")]).unwrap_err();
    assert!(matches!(err, ConfigError::Invalid { .. }), "{err:?}");
}

#[test]
fn env_quick_start() {
    let home = tempfile::tempdir().unwrap();
    // (environment, expected base URL, model, API key)
    let cases: [(Env, &str, &str, Option<&str>); 3] = [
        (
            &[("OPENAI_API_KEY", "sk-1")],
            "https://api.openai.com/v1",
            "gpt-4o-mini",
            Some("sk-1"),
        ),
        (
            &[
                ("OPENAI_BASE_URL", "http://localhost:11434/v1"),
                ("SMALLEBOT_MODEL", "qwen3:8b"),
            ],
            "http://localhost:11434/v1",
            "qwen3:8b",
            None,
        ),
        (
            &[
                ("OPENAI_BASE_URL", "http://x/v1"),
                ("OPENAI_API_KEY", "k"),
                ("SMALLEBOT_MODEL", "m"),
            ],
            "http://x/v1",
            "m",
            Some("k"),
        ),
    ];
    for (pairs, base_url, model, key) in cases {
        let resolved = resolve(home.path(), pairs).unwrap().unwrap();
        let chat = &resolved.chat;
        assert_eq!(chat.settings.id, "env");
        assert_eq!(chat.settings.base_url, base_url);
        assert_eq!(chat.settings.model, model);
        assert_eq!(chat.api_key.as_deref(), key);
        assert_eq!(chat.settings.context_window, 128_000);
        assert_eq!(chat.settings.tokenizer, "o200k_base");
        assert_eq!(resolved.compaction, resolved.chat);
    }
}

#[test]
fn images_are_seen_only_where_configured() {
    let home = home_with_models(
        r#"{ "default": "eyes", "models": [
             { "id": "eyes", "baseUrl": "http://a/v1", "model": "m", "supportsImages": true },
             { "id": "blind", "baseUrl": "http://b/v1", "model": "n" } ] }"#,
    );
    let resolved = resolve(home.path(), &[]).unwrap().unwrap();
    let seen: Vec<(&str, bool)> = resolved
        .choices
        .iter()
        .map(|c| (c.settings.id.as_str(), c.settings.supports_images))
        .collect();
    assert_eq!(seen, [("eyes", true), ("blind", false)]);
    let empty = tempfile::tempdir().unwrap();
    for (value, expected) in [
        ("1", true),
        ("true", true),
        ("YES", true),
        ("0", false),
        ("", false),
    ] {
        let pairs: Env = &[("OPENAI_API_KEY", "k"), ("OPENAI_SUPPORTS_IMAGES", value)];
        let resolved = resolve(empty.path(), pairs).unwrap().unwrap();
        assert_eq!(
            resolved.chat.settings.supports_images, expected,
            "{value:?}"
        );
    }
    let unset = resolve(empty.path(), &[("OPENAI_API_KEY", "k")])
        .unwrap()
        .unwrap();
    assert!(!unset.chat.settings.supports_images);
}

#[test]
fn nothing_configured_is_none() {
    let home = tempfile::tempdir().unwrap();
    assert_eq!(resolve(home.path(), &[]).unwrap(), None);
    assert_eq!(
        resolve(
            home.path(),
            &[("SMALLEBOT_MODEL", "m"), ("OPENAI_API_KEY", "")]
        )
        .unwrap(),
        None
    );
}

#[test]
fn help_text_covers_every_way_to_configure() {
    for needle in [
        "OPENAI_API_KEY",
        "OPENAI_BASE_URL",
        "SMALLEBOT_MODEL",
        "http://localhost:11434/v1",
        "models.json",
        "\"baseUrl\"",
        "ollama pull",
        "llama-server",
    ] {
        assert!(HOW_TO_CONFIGURE.contains(needle), "{needle}");
    }
    // Written for someone with only the binary: nothing that needs the source tree.
    assert!(!HOW_TO_CONFIGURE.contains("cargo"), "{HOW_TO_CONFIGURE}");
}

#[test]
fn debug_output_never_shows_the_api_key() {
    let home = tempfile::tempdir().unwrap();
    let resolved = resolve(home.path(), &[("OPENAI_API_KEY", "sk-secret-123")])
        .unwrap()
        .unwrap();
    let shown = format!("{resolved:?}");
    assert!(!shown.contains("sk-secret-123"), "{shown}");
    assert!(shown.contains("<redacted>"), "{shown}");
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
