//! What `serve`'s `/metrics` learns from the spans of a turn, through the real binary:
//! the model request counted by model, purpose and outcome, its wall time and time to
//! first token, the tokens the server reported, the store's operations and the turn's
//! time on the host; and an answer's `Server-Timing` (store, render, total).
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod cli;

use std::time::{Duration, Instant};

use smallebot_testkit::{ScriptedResponse, TestModel};

/// The samples of `text` named `name` whose labels include `labels`: counters and
/// gauges by value, histograms by their count.
fn samples(text: &str, name: &str, labels: &[(&str, &str)]) -> Vec<f64> {
    let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned()))).unwrap();
    scrape
        .samples
        .into_iter()
        .filter(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| match s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            prometheus_parse::Value::Histogram(buckets) => buckets.last().map_or(0.0, |b| b.count),
            prometheus_parse::Value::Summary(_) => f64::NAN,
        })
        .collect()
}

/// The metrics text `serve` at `base` answers now.
async fn scrape(http: &reqwest::Client, base: &str) -> String {
    let answer = http.get(format!("{base}/metrics")).send().await.unwrap();
    answer.text().await.unwrap()
}

fn one(text: &str, name: &str, labels: &[(&str, &str)]) -> f64 {
    samples(text, name, labels).first().copied().unwrap_or(0.0)
}

#[tokio::test]
async fn a_turn_served_fills_the_model_store_and_overhead_series() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    model.answer_when(smallebot_testkit::RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title").usage(5, 2)
    });
    model.push(ScriptedResponse::text("measured answer").usage(21, 4));
    let mut serve = cli::smallebot(home.path(), Some(&model.base_url()));
    serve.args(["serve", "--addr", "127.0.0.1:0"]);
    let (mut child, _banner, base) = cli::start_serving(serve).await;
    let http = reqwest::Client::new();
    let before = scrape(&http, &base).await;
    assert_eq!(
        one(&before, "smallebot_model_requests_total", &[]),
        0.0,
        "{before}"
    );
    let id = cli::new_conversation(&http, &base).await;
    let started = http
        .post(format!("{base}/api/conversations/{id}/messages"))
        .json(&serde_json::json!({"text": "measure this"}))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);

    let chat = [
        ("model", "scripted"),
        ("purpose", "chat"),
        ("outcome", "ok"),
    ];
    let deadline = Instant::now() + Duration::from_secs(30);
    let text = loop {
        let text = scrape(&http, &base).await;
        let done = one(&text, "smallebot_model_requests_total", &chat) == 1.0
            && one(&text, "smallebot_turn_host_overhead_seconds", &[]) == 1.0;
        if done {
            break text;
        }
        assert!(
            Instant::now() < deadline,
            "the turn's series never came: {text}"
        );
        tokio::time::sleep(Duration::from_millis(30)).await;
    };
    assert_eq!(
        one(
            &text,
            "smallebot_turns_by_model_total",
            &[("model", "scripted"), ("outcome", "completed")]
        ),
        1.0,
        "{text}"
    );
    let scripted = [("model", "scripted")];
    assert_eq!(
        one(&text, "smallebot_model_request_duration_seconds", &scripted),
        // The turn's request and the title's.
        samples(&text, "smallebot_model_requests_total", &scripted)
            .iter()
            .sum::<f64>(),
        "{text}"
    );
    assert!(
        one(
            &text,
            "smallebot_model_time_to_first_token_seconds",
            &scripted
        ) >= 1.0
    );
    assert_eq!(
        one(
            &text,
            "smallebot_model_tokens_total",
            &[("model", "scripted"), ("kind", "input")]
        ),
        // The turn's request and the title's.
        26.0,
        "{text}"
    );
    assert_eq!(
        one(
            &text,
            "smallebot_model_tokens_total",
            &[("model", "scripted"), ("kind", "output")]
        ),
        6.0
    );
    // The turn's rows were written and read back.
    assert!(
        one(
            &text,
            "smallebot_store_operation_duration_seconds",
            &[("operation", "write")]
        ) >= 1.0,
        "{text}"
    );
    assert!(
        samples(&text, "smallebot_store_operation_duration_seconds", &[]).len() >= 2,
        "reads by name beside writes: {text}"
    );
    // Every answer says where its time went: a timeline read is mostly the store's.
    let timeline = http
        .get(format!("{base}/api/conversations/{id}"))
        .send()
        .await
        .unwrap();
    let timing = timeline.headers()["server-timing"]
        .to_str()
        .unwrap()
        .to_owned();
    let parts: Vec<(&str, f64)> = timing
        .split(", ")
        .map(|part| {
            let (name, duration) = part.split_once(";dur=").unwrap();
            (name, duration.parse().unwrap())
        })
        .collect();
    let names: Vec<&str> = parts.iter().map(|(name, _)| *name).collect();
    assert_eq!(names, ["store", "render", "total"], "{timing}");
    assert!(
        parts[0].1 > 0.0,
        "the timeline was read from the store: {timing}"
    );
    assert!(
        (parts[0].1 + parts[1].1 - parts[2].1).abs() < 0.01,
        "{timing}"
    );
    // An answer that needed no store says its total only, never a false zero.
    let health = http.get(format!("{base}/healthz")).send().await.unwrap();
    let timing = health.headers()["server-timing"].to_str().unwrap();
    assert!(
        timing.starts_with("total;dur=") && !timing.contains(','),
        "{timing}"
    );
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}

#[tokio::test]
async fn tokens_and_cost_are_counted_by_model_and_by_user_when_asked() {
    let home = tempfile::tempdir().unwrap();
    let model = TestModel::start().await.unwrap();
    let models = serde_json::json!({"default": "big", "models": [{
        "id": "big", "baseUrl": model.base_url(), "model": "scripted",
        "pricing": {"inputPerMTok": 2, "outputPerMTok": 8, "currency": "USD"}}]});
    std::fs::write(home.path().join("models.json"), models.to_string()).unwrap();
    model.answer_when(smallebot_testkit::RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title").usage(5, 2)
    });
    model.push(ScriptedResponse::text("priced answer").usage_detailed(1000, 200, 100, 30));
    let mut serve = cli::smallebot(home.path(), None);
    serve.args(["serve", "--addr", "127.0.0.1:0", "--metrics-per-user"]);
    let (mut child, _banner, base) = cli::start_serving(serve).await;
    let http = reqwest::Client::new();
    let id = cli::new_conversation(&http, &base).await;
    let started = http
        .post(format!("{base}/api/conversations/{id}/messages"))
        .json(&serde_json::json!({"text": "what does this cost"}))
        .send()
        .await
        .unwrap();
    assert_eq!(started.status(), reqwest::StatusCode::ACCEPTED);
    let tokens = "smallebot_usage_tokens_total";
    let of = |kind| [("model", "big"), ("kind", kind), ("user", "tester")];
    let deadline = Instant::now() + Duration::from_secs(30);
    let text = loop {
        let text = scrape(&http, &base).await;
        // The turn's request and the title's.
        if one(&text, tokens, &of("completion")) == 102.0 {
            break text;
        }
        assert!(Instant::now() < deadline, "no usage counted: {text}");
        tokio::time::sleep(Duration::from_millis(50)).await;
    };
    assert_eq!(one(&text, tokens, &of("prompt")), 1005.0, "{text}");
    assert_eq!(one(&text, tokens, &of("cached_prompt")), 200.0, "{text}");
    assert_eq!(one(&text, tokens, &of("reasoning")), 30.0, "{text}");
    // 1005 prompt tokens at 2 (none priced as cached: no cached price is the input
    // price) and 102 completion tokens at 8 per million.
    let cost = one(
        &text,
        "smallebot_usage_cost_total",
        &[("model", "big"), ("currency", "USD"), ("user", "tester")],
    );
    let expected = (1005.0 * 2.0 + 102.0 * 8.0) / 1e6;
    assert!(
        (cost - expected).abs() < 1e-12,
        "{cost} ≠ {expected}: {text}"
    );
    child.start_kill().unwrap();
    child.wait().await.unwrap();
}
