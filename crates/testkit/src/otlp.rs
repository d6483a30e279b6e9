//! A small OTLP/HTTP trace receiver on 127.0.0.1: it answers `POST /v1/traces` in
//! binary protobuf (`application/x-protobuf`) or JSON (`application/json`), as an
//! OpenTelemetry collector does, and keeps every span it got, flattened for assertions.

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::Router;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::routing::post;
use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::{AnyValue, KeyValue, any_value};
use prost::Message;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::TestkitError;
use crate::server::{bind_loopback, serve_until};

/// A span as the receiver got it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReceivedSpan {
    /// The span's name.
    pub name: String,
    /// Its trace, in hex.
    pub trace_id: String,
    /// Its id, in hex.
    pub span_id: String,
    /// Its parent's id in hex; empty for a root span.
    pub parent_span_id: String,
    /// Its kind (OTLP's numbers: 1 internal, 2 server, 3 client).
    pub kind: i32,
    /// Its attributes, each value as text.
    pub attributes: BTreeMap<String, String>,
    /// Its events: name and attributes.
    pub events: Vec<(String, BTreeMap<String, String>)>,
    /// Its status code (0 unset, 1 ok, 2 error).
    pub status_code: i32,
    /// Its resource's `service.name`.
    pub service_name: String,
}

impl ReceivedSpan {
    /// The attribute `key`, if the span has it.
    pub fn attribute(&self, key: &str) -> Option<&str> {
        self.attributes.get(key).map(String::as_str)
    }
}

#[derive(Default)]
struct Received {
    spans: Mutex<Vec<ReceivedSpan>>,
    /// How many export requests arrived, and which encodings they used.
    encodings: Mutex<Vec<String>>,
}

/// The receiver; dropping it stops it.
pub struct OtlpReceiver {
    addr: SocketAddr,
    received: Arc<Received>,
    shutdown: watch::Sender<bool>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for OtlpReceiver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OtlpReceiver")
            .field("addr", &self.addr)
            .finish_non_exhaustive()
    }
}

impl OtlpReceiver {
    /// Binds 127.0.0.1 on a random port and serves on the current tokio runtime.
    pub async fn start() -> Result<Self, TestkitError> {
        let (listener, addr) = bind_loopback().await?;
        let received = Arc::new(Received::default());
        let router = Router::new()
            .route("/v1/traces", post(export))
            .with_state(Arc::clone(&received));
        let (shutdown, stop) = watch::channel(false);
        let task = serve_until(listener, router, stop);
        Ok(Self {
            addr,
            received,
            shutdown,
            task: Some(task),
        })
    }

    /// The base URL to give as `OTEL_EXPORTER_OTLP_ENDPOINT` (`http://127.0.0.1:PORT`).
    pub fn endpoint(&self) -> String {
        format!("http://{}", self.addr)
    }

    /// Every span received so far, in arrival order.
    pub fn spans(&self) -> Vec<ReceivedSpan> {
        lock(&self.received.spans).clone()
    }

    /// The content types of the export requests received so far.
    pub fn encodings(&self) -> Vec<String> {
        lock(&self.received.encodings).clone()
    }

    /// Waits until a span named `name` has arrived.
    ///
    /// # Errors
    /// None arrived within `timeout` (the message lists the names that did).
    pub async fn wait_for_span(
        &self,
        name: &str,
        timeout: Duration,
    ) -> Result<ReceivedSpan, String> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(span) = self.spans().into_iter().find(|s| s.name == name) {
                return Ok(span);
            }
            if tokio::time::Instant::now() >= deadline {
                let names: Vec<String> = self.spans().into_iter().map(|s| s.name).collect();
                return Err(format!(
                    "no span named {name:?} within {timeout:?}; received: {names:?}"
                ));
            }
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    }
}

impl Drop for OtlpReceiver {
    fn drop(&mut self) {
        let _ = self.shutdown.send(true);
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

async fn export(
    State(received): State<Arc<Received>>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, HeaderMap, Vec<u8>) {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
        .to_owned();
    let request = if content_type.starts_with("application/json") {
        serde_json::from_slice::<ExportTraceServiceRequest>(&body).map_err(|e| e.to_string())
    } else {
        ExportTraceServiceRequest::decode(body).map_err(|e| e.to_string())
    };
    let request = match request {
        Ok(request) => request,
        Err(error) => {
            return (
                StatusCode::BAD_REQUEST,
                HeaderMap::new(),
                error.into_bytes(),
            );
        }
    };
    lock(&received.encodings).push(content_type.clone());
    let mut spans = Vec::new();
    for resource_spans in request.resource_spans {
        let service_name = resource_spans
            .resource
            .as_ref()
            .and_then(|r| r.attributes.iter().find(|kv| kv.key == "service.name"))
            .map(|kv| text(kv.value.as_ref()))
            .unwrap_or_default();
        for scope in resource_spans.scope_spans {
            for span in scope.spans {
                spans.push(ReceivedSpan {
                    name: span.name,
                    trace_id: hex(&span.trace_id),
                    span_id: hex(&span.span_id),
                    parent_span_id: hex(&span.parent_span_id),
                    kind: span.kind,
                    attributes: attributes(&span.attributes),
                    events: span
                        .events
                        .iter()
                        .map(|e| (e.name.clone(), attributes(&e.attributes)))
                        .collect(),
                    status_code: span.status.map_or(0, |s| s.code),
                    service_name: service_name.clone(),
                });
            }
        }
    }
    lock(&received.spans).extend(spans);
    let mut answer = HeaderMap::new();
    if let Ok(value) = content_type.parse() {
        answer.insert(header::CONTENT_TYPE, value);
    }
    // An empty ExportTraceServiceResponse: no bytes in protobuf, `{}` in JSON.
    let body = if content_type.starts_with("application/json") {
        b"{}".to_vec()
    } else {
        Vec::new()
    };
    (StatusCode::OK, answer, body)
}

fn attributes(pairs: &[KeyValue]) -> BTreeMap<String, String> {
    pairs
        .iter()
        .map(|kv| (kv.key.clone(), text(kv.value.as_ref())))
        .collect()
}

fn text(value: Option<&AnyValue>) -> String {
    match value.and_then(|v| v.value.as_ref()) {
        Some(any_value::Value::StringValue(s)) => s.clone(),
        Some(any_value::Value::BoolValue(b)) => b.to_string(),
        Some(any_value::Value::IntValue(i)) => i.to_string(),
        Some(any_value::Value::DoubleValue(d)) => d.to_string(),
        Some(other) => format!("{other:?}"),
        None => String::new(),
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}
