//! The series measured from spans: a turn's model requests and tool calls, shaped as
//! the crates open them, become request counts, latencies, tokens and the turn's host
//! overhead; a store span becomes a latency by operation; other spans count nothing.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::Duration;

use smallebot_telemetry::Metrics;
use tracing::field::Empty;
use tracing_subscriber::layer::SubscriberExt;

/// The sample `name` with `labels`: a counter's value, a histogram's count and sum.
fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<(f64, f64)> {
    let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned()))).unwrap();
    let sum = scrape
        .samples
        .iter()
        .find(|s| {
            s.metric == format!("{name}_sum")
                && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v))
        })
        .map(|s| match s.value {
            prometheus_parse::Value::Untyped(v) | prometheus_parse::Value::Counter(v) => v,
            _ => f64::NAN,
        })
        .unwrap_or(0.0);
    scrape
        .samples
        .iter()
        .find(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| match &s.value {
            prometheus_parse::Value::Counter(v) | prometheus_parse::Value::Untyped(v) => (*v, 0.0),
            prometheus_parse::Value::Histogram(buckets) => {
                (buckets.last().map_or(0.0, |b| b.count), sum)
            }
            other => panic!("{name}: {other:?}"),
        })
}

#[test]
fn spans_of_a_turn_become_model_store_and_overhead_series() {
    let metrics = Arc::new(Metrics::new());
    let subscriber = tracing_subscriber::registry().with(metrics.span_layer());
    tracing::subscriber::with_default(subscriber, || {
        let turn = tracing::info_span!(target: "smallebot_application", "turn", turn_id = Empty);
        let _turn = turn.enter();
        std::thread::sleep(Duration::from_millis(5));
        {
            let chat = tracing::info_span!(
                target: "smallebot_model_client",
                "chat",
                gen_ai.request.model = %"m1",
                smallebot.request.purpose = "chat",
                gen_ai.usage.input_tokens = Empty,
                gen_ai.usage.output_tokens = Empty,
                error.type = Empty,
                smallebot.time_to_first_token_seconds = Empty,
            );
            let _chat = chat.enter();
            chat.record("smallebot.time_to_first_token_seconds", 0.25);
            std::thread::sleep(Duration::from_millis(30));
            chat.record("gen_ai.usage.input_tokens", 100_u64);
            chat.record("gen_ai.usage.output_tokens", 9_u64);
        }
        {
            let failed = tracing::info_span!(
                target: "smallebot_model_client",
                "chat",
                gen_ai.request.model = %"m1",
                smallebot.request.purpose = "title",
                error.type = Empty,
            );
            failed.record("error.type", "rate_limited");
        }
        {
            // Two tool calls at once, overlapping: their time counts once.
            let a = tracing::info_span!(target: "smallebot_application", "execute_tool");
            let b = tracing::info_span!(target: "smallebot_application", "execute_tool");
            let _a = a.enter();
            let _b = b.enter();
            std::thread::sleep(Duration::from_millis(30));
        }
        {
            let store = tracing::debug_span!(target: "smallebot_infrastructure", "store", operation = "write");
            let _store = store.enter();
        }
        // Not SmallEBot's, or not timed: nothing.
        let _other = tracing::info_span!(target: "hyper", "chat").entered();
        let _request = tracing::info_span!(target: "smallebot_web", "request").entered();
    });
    let text = metrics.render();
    let ok = [("model", "m1"), ("purpose", "chat"), ("outcome", "ok")];
    assert_eq!(
        sample(&text, "smallebot_model_requests_total", &ok)
            .unwrap()
            .0,
        1.0,
        "{text}"
    );
    let failed = [
        ("model", "m1"),
        ("purpose", "title"),
        ("outcome", "rate_limited"),
    ];
    assert_eq!(
        sample(&text, "smallebot_model_requests_total", &failed)
            .unwrap()
            .0,
        1.0
    );
    let m1 = [("model", "m1")];
    let (count, sum) = sample(&text, "smallebot_model_request_duration_seconds", &m1).unwrap();
    assert_eq!(count, 2.0);
    assert!(sum >= 0.03, "{sum}");
    let (count, sum) = sample(&text, "smallebot_model_time_to_first_token_seconds", &m1).unwrap();
    assert_eq!((count, sum), (1.0, 0.25));
    let input = [("model", "m1"), ("kind", "input")];
    assert_eq!(
        sample(&text, "smallebot_model_tokens_total", &input)
            .unwrap()
            .0,
        100.0
    );
    let output = [("model", "m1"), ("kind", "output")];
    assert_eq!(
        sample(&text, "smallebot_model_tokens_total", &output)
            .unwrap()
            .0,
        9.0
    );
    let write = [("operation", "write")];
    assert_eq!(
        sample(&text, "smallebot_store_operation_duration_seconds", &write)
            .unwrap()
            .0,
        1.0
    );
    // The turn: about 65 ms of wall time, 60 of them in the model and the tools
    // (the two calls overlapped: counted once, else the overhead would be zero).
    let (count, overhead) = sample(&text, "smallebot_turn_host_overhead_seconds", &[]).unwrap();
    assert_eq!(count, 1.0);
    assert!(overhead >= 0.004, "the 5 ms before the request: {overhead}");
    assert!(
        overhead < 0.03,
        "the model's and tools' time is not overhead: {overhead}"
    );
}

#[test]
fn a_requests_store_time_is_its_own_not_its_turns() {
    use smallebot_application::ports::MetricsExport;
    let metrics = Arc::new(Metrics::new());
    let subscriber = tracing_subscriber::registry().with(metrics.span_layer());
    tracing::subscriber::with_default(subscriber, || {
        let request = tracing::info_span!(target: "smallebot_web", "request");
        assert_eq!(metrics.store_time(&request), Some(Duration::ZERO));
        let _request = request.enter();
        {
            let _read = tracing::debug_span!(target: "smallebot_infrastructure", "store", operation = "read conversation").entered();
            std::thread::sleep(Duration::from_millis(20));
        }
        {
            // A turn the request started: its store work is the turn's.
            let _turn = tracing::info_span!(target: "smallebot_application", "turn").entered();
            let _write = tracing::debug_span!(target: "smallebot_infrastructure", "store", operation = "write").entered();
            std::thread::sleep(Duration::from_millis(40));
        }
        let store = metrics.store_time(&request).unwrap();
        assert!(store >= Duration::from_millis(20), "{store:?}");
        assert!(
            store < Duration::from_millis(40),
            "the turn's write is not the request's: {store:?}"
        );
        // A span the layer does not time has no store time.
        let other = tracing::info_span!(target: "smallebot_web", "other");
        assert_eq!(metrics.store_time(&other), None);
    });
}
