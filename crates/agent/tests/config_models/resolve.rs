//! Endpoint resolution: models.json's models with their keys, `SMALLEBOT_MODEL`,
//! the environment's quick start, what is seen and what is said when something is
//! missing.

use super::*;

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
