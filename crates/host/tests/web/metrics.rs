//! `GET /metrics` beyond loopback (this harness serves without the peer's address, as
//! a proxy in front would look): refused without a configured token, then only with
//! it; the series a scraper parses change as a turn runs and a stream is open.

use std::sync::Arc;

use reqwest::StatusCode;
use smallebot_telemetry::Metrics;
use smallebot_testkit::ScriptedResponse;

use crate::common::Server;

/// The value of sample `name` with `labels` in `text`.
fn sample(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let scrape = prometheus_parse::Scrape::parse(text.lines().map(|l| Ok(l.to_owned()))).unwrap();
    scrape
        .samples
        .into_iter()
        .find(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| match s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            other => panic!("{name}: {other:?}"),
        })
}

#[tokio::test]
async fn metrics_beyond_loopback_need_the_token_and_change_as_turns_run() {
    let refusing = Server::start_with(|web| web.metrics(Arc::new(Metrics::new()), None)).await;
    let refused = refusing
        .http
        .get(refusing.url("/metrics"))
        .send()
        .await
        .unwrap();
    assert_eq!(refused.status(), StatusCode::FORBIDDEN);
    assert!(
        refused
            .text()
            .await
            .unwrap()
            .contains("SMALLEBOT_METRICS_TOKEN")
    );

    let server =
        Server::start_with(|web| web.metrics(Arc::new(Metrics::new()), Some("m-token".into())))
            .await;
    let get = |token: Option<&str>| {
        let mut request = server.http.get(server.url("/metrics"));
        if let Some(token) = token {
            request = request.bearer_auth(token);
        }
        request.send()
    };
    assert_eq!(get(None).await.unwrap().status(), StatusCode::UNAUTHORIZED);
    assert_eq!(
        get(Some("wrong")).await.unwrap().status(),
        StatusCode::UNAUTHORIZED
    );
    let before = get(Some("m-token")).await.unwrap();
    assert_eq!(before.status(), StatusCode::OK);
    assert!(
        before.headers()["content-type"]
            .to_str()
            .unwrap()
            .starts_with("application/openmetrics-text")
    );
    let before = before.text().await.unwrap();
    let completed = [("outcome", "completed")];
    assert_eq!(
        sample(&before, "smallebot_turns_total", &completed),
        None,
        "{before}"
    );

    let id = server.create().await;
    server.model.push(ScriptedResponse::text("hi"));
    server.turn(&id, "hello").await;
    let _open = server.open_events(&id, None).await;
    let after = get(Some("m-token")).await.unwrap().text().await.unwrap();
    assert_eq!(
        sample(&after, "smallebot_turns_total", &completed),
        Some(1.0),
        "{after}"
    );
    assert_eq!(
        sample(&after, "smallebot_active_turns", &[]),
        Some(0.0),
        "{after}"
    );
    assert_eq!(
        sample(&after, "smallebot_sse_subscribers", &[]),
        Some(1.0),
        "{after}"
    );
}
