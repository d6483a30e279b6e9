//! A database outage on a real PostgreSQL cluster stopped mid-run: API requests fail
//! within seconds with `503` and say why, `/healthz` stays `200`, `/readyz` reports the
//! database, and everything works again once the server is back.

use std::sync::Arc;
use std::time::{Duration, Instant};

use reqwest::StatusCode;
use serde_json::Value;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_model_client::ChatEndpoint;
use smallebot_postgres::PgStore;
use smallebot_testkit::TestModel;
use smallebot_testkit::postgres::TestCluster;
use smallebot_web::{WebState, hosts_for, router};

/// Longest an API request may take during an outage (the pool's acquire timeout is
/// 5 s; before, requests hung for 30 s).
const FAILS_WITHIN: Duration = Duration::from_secs(8);

async fn timed(request: reqwest::RequestBuilder) -> (StatusCode, String, Duration) {
    let started = Instant::now();
    let response = request.send().await.unwrap();
    let status = response.status();
    let body = response.text().await.unwrap();
    (status, body, started.elapsed())
}

fn error_of(body: &str) -> String {
    let json: Value = serde_json::from_str(body).unwrap_or_else(|_| panic!("not JSON: {body}"));
    json["error"].as_str().unwrap_or_default().to_owned()
}

#[tokio::test]
async fn a_stopped_database_fails_requests_fast_with_503_and_readyz_follows_it() {
    let Some(cluster) = TestCluster::start("a_stopped_database_fails_requests_fast") else {
        return;
    };
    let url = cluster.create_database().unwrap();
    let store = PgStore::connect(&url).await.unwrap();
    let model = TestModel::start().await.unwrap();
    let agent = AgentAssembly::new(
        Arc::new(store.clone()),
        ChatEndpoint::new(model.base_url(), "test"),
    )
    .build()
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = WebState::new(Arc::new(agent.service), "alice").allow_hosts(hosts_for(addr));
    tokio::spawn(smallebot_web::serve(listener, router(state)));
    let http = reqwest::Client::builder()
        .timeout(Duration::from_secs(60))
        .build()
        .unwrap();
    let url_of = |path: &str| format!("http://{addr}{path}");

    let created = http
        .post(url_of("/api/conversations"))
        .send()
        .await
        .unwrap();
    assert_eq!(created.status(), StatusCode::CREATED);
    let id = created.json::<Value>().await.unwrap()["id"].clone();
    let (status, body, _) = timed(http.get(url_of("/readyz"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    assert_eq!(serde_json::from_str::<Value>(&body).unwrap()["ready"], true);

    cluster.stop_server().unwrap();

    for (what, request) in [
        ("list", http.get(url_of("/api/conversations"))),
        ("create", http.post(url_of("/api/conversations"))),
        (
            "read",
            http.get(url_of(&format!(
                "/api/conversations/{}",
                id.as_str().unwrap()
            ))),
        ),
        // A message: no store read before the turn's own (serve's session bookkeeping
        // reads nothing without session hooks), so it fails as fast as the others.
        (
            "send",
            http.post(url_of(&format!(
                "/api/conversations/{}/messages",
                id.as_str().unwrap()
            )))
            .json(&serde_json::json!({ "text": "lost in the outage" })),
        ),
    ] {
        let (status, body, took) = timed(request).await;
        assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{what}: {body}");
        assert!(took < FAILS_WITHIN, "{what} took {took:?}");
        let error = error_of(&body);
        assert!(
            error.contains("the database cannot be reached")
                && error.contains("Check that it runs"),
            "{what}: {error}"
        );
    }
    let (status, body, took) = timed(http.get(url_of("/readyz"))).await;
    assert_eq!(status, StatusCode::SERVICE_UNAVAILABLE, "{body}");
    assert!(took < Duration::from_secs(4), "readyz took {took:?}");
    let error = error_of(&body);
    assert!(error.starts_with("not ready: the database "), "{body}");
    // Says nothing of the probe's own read.
    assert!(!error.contains("while"), "{body}");
    // Liveness is not readiness: the process still runs.
    let (status, body, _) = timed(http.get(url_of("/healthz"))).await;
    assert_eq!((status, body.as_str()), (StatusCode::OK, "ok"));

    cluster.start_server().unwrap();
    // Ready again by itself (the pool reconnects), and the data is all there.
    let deadline = Instant::now() + Duration::from_secs(30);
    loop {
        let (status, body, _) = timed(http.get(url_of("/readyz"))).await;
        if status == StatusCode::OK {
            break;
        }
        assert!(Instant::now() < deadline, "never ready again: {body}");
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    let (status, body, _) = timed(http.get(url_of("/api/conversations"))).await;
    assert_eq!(status, StatusCode::OK, "{body}");
    let listed: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(listed[0]["id"], id);
}
