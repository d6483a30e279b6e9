//! The HTTP server: [`TestModel`], its script queue, responder and request log.

use std::collections::{HashMap, VecDeque};
use std::net::{Ipv4Addr, SocketAddr};
use std::panic::AssertUnwindSafe;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use axum::Router;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::Response;
use axum::routing::post;
use bytes::Bytes;
use serde_json::Value;
use tokio::sync::watch;
use tokio::task::JoinHandle;

use crate::error::TestkitError;
use crate::record::RecordedRequest;
use crate::respond::{render, testkit_error};
use crate::script::ScriptedResponse;

/// A function that scripts the answer to a request when the queue is empty.
type Responder = Arc<dyn Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync>;

/// Which requests a side route answers.
type Matcher = Box<dyn Fn(&RecordedRequest) -> bool + Send + Sync>;

/// The mutable part of the server, behind one lock.
#[derive(Default)]
struct Script {
    queue: VecDeque<ScriptedResponse>,
    responder: Option<Responder>,
    /// Requests these match are answered here, before the queue (first match wins).
    side_routes: Vec<(Matcher, Responder)>,
    requests: Vec<Arc<RecordedRequest>>,
    /// JSON served at other paths (a server's own endpoints, such as llama.cpp's
    /// `/props`), and how often each was asked for.
    info: HashMap<String, (Value, usize)>,
}

/// What the handler and the [`TestModel`] handle share.
struct Shared {
    script: Mutex<Script>,
    /// Number of recorded requests, for [`TestModel::wait_for_requests`].
    arrived: watch::Sender<usize>,
    /// `true` once the server is shutting down; streams and delays stop at once.
    shutdown: watch::Sender<bool>,
    /// When each request's answer was sent whole, by request index.
    sent: Mutex<HashMap<usize, Instant>>,
}

impl Shared {
    fn script(&self) -> MutexGuard<'_, Script> {
        self.script.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A scripted OpenAI-compatible chat completions server on 127.0.0.1.
///
/// Answers `POST /v1/chat/completions` (and `POST /chat/completions`) from the side
/// routes given to [`answer_when`](Self::answer_when) for the requests they match, else
/// from a FIFO queue of [`ScriptedResponse`]s, then from the function given to
/// [`respond_with`](Self::respond_with); with none of them, it answers HTTP 500
/// "smallebot-testkit: no scripted response left for request #N". Every request is
/// recorded. Dropping the handle stops the server.
pub struct TestModel {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: Option<JoinHandle<()>>,
}

impl std::fmt::Debug for TestModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestModel")
            .field("addr", &self.addr)
            .field("requests", &self.request_count())
            .field("pending", &self.pending())
            .finish_non_exhaustive()
    }
}

/// A listener on 127.0.0.1 at a port the system picks, and its address.
pub(crate) async fn bind_loopback() -> Result<(tokio::net::TcpListener, SocketAddr), TestkitError> {
    let listener = tokio::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))
        .await
        .map_err(TestkitError::Bind)?;
    let addr = listener.local_addr().map_err(TestkitError::Bind)?;
    Ok((listener, addr))
}

/// Serves `router` on `listener` in a task of its own until `stop` turns true.
pub(crate) fn serve_until(
    listener: tokio::net::TcpListener,
    router: Router,
    mut stop: watch::Receiver<bool>,
) -> JoinHandle<()> {
    let serve = axum::serve(listener, router).with_graceful_shutdown(async move {
        let _ = stop.wait_for(|stopped| *stopped).await;
    });
    tokio::spawn(async move {
        // An accept error ends the server; requests then fail visibly in the test.
        let _ = serve.await;
    })
}

impl TestModel {
    /// Bind 127.0.0.1 on a random port and start serving on the current tokio runtime.
    pub async fn start() -> Result<Self, TestkitError> {
        let (listener, addr) = bind_loopback().await?;
        let shared = Arc::new(Shared {
            script: Mutex::new(Script::default()),
            arrived: watch::Sender::new(0),
            shutdown: watch::Sender::new(false),
            sent: Mutex::new(HashMap::new()),
        });
        let router = Router::new()
            .route("/v1/chat/completions", post(chat))
            .route("/chat/completions", post(chat))
            .fallback(info_or_not_found)
            .with_state(Arc::clone(&shared));
        let task = serve_until(listener, router, shared.shutdown.subscribe());
        Ok(Self {
            addr,
            shared,
            task: Some(task),
        })
    }

    /// Like [`start`](Self::start), but served by a tokio runtime of its own on a thread
    /// of its own, as a model server in another process would be: none of its work runs
    /// on the caller's runtime (a benchmark of the host's own time then does not count
    /// the model server's turns on the host's workers). The thread ends when the handle
    /// is dropped or shut down.
    pub fn start_apart() -> Result<Self, TestkitError> {
        let (sender, receiver) = std::sync::mpsc::channel();
        std::thread::Builder::new()
            .name("smallebot-testkit-model".into())
            .spawn(move || {
                let runtime = match tokio::runtime::Builder::new_current_thread()
                    .enable_all()
                    .build()
                {
                    Ok(runtime) => runtime,
                    Err(e) => {
                        let _ = sender.send(Err(TestkitError::Thread(e.to_string())));
                        return;
                    }
                };
                runtime.block_on(async move {
                    match Self::start().await {
                        Ok(mut model) => {
                            let task = model.task.take();
                            let _ = sender.send(Ok(model));
                            if let Some(task) = task {
                                let _ = task.await; // until the handle says stop
                            }
                        }
                        Err(e) => {
                            let _ = sender.send(Err(e));
                        }
                    }
                });
            })
            .map_err(|e| TestkitError::Thread(e.to_string()))?;
        receiver
            .recv()
            .map_err(|e| TestkitError::Thread(e.to_string()))?
    }

    /// The socket address the server listens on.
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// The OpenAI base URL, `http://127.0.0.1:PORT/v1`.
    pub fn base_url(&self) -> String {
        format!("http://{}/v1", self.addr)
    }

    /// Queue a response; queued responses answer requests in FIFO order.
    pub fn push(&self, response: ScriptedResponse) {
        self.shared.script().queue.push_back(response);
    }

    /// Queue several responses in order.
    pub fn push_all(&self, responses: impl IntoIterator<Item = ScriptedResponse>) {
        self.shared.script().queue.extend(responses);
    }

    /// Answer requests with `responder` whenever the queue is empty (replaces any earlier
    /// responder).
    pub fn respond_with(
        &self,
        responder: impl Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync + 'static,
    ) {
        self.shared.script().responder = Some(Arc::new(responder));
    }

    /// Answer every request that `matches` with `responder`, before the queue: for
    /// requests that arrive at no fixed point of a script (a title asked for beside a
    /// turn), so they never take a response queued for another request. Routes added
    /// earlier are tried first. Such requests are recorded like any other.
    pub fn answer_when(
        &self,
        matches: impl Fn(&RecordedRequest) -> bool + Send + Sync + 'static,
        responder: impl Fn(&RecordedRequest) -> ScriptedResponse + Send + Sync + 'static,
    ) {
        self.shared
            .script()
            .side_routes
            .push((Box::new(matches), Arc::new(responder)));
    }

    /// How many queued responses have not been used yet.
    pub fn pending(&self) -> usize {
        self.shared.script().queue.len()
    }

    /// When the answer to request `index` was sent whole (a streamed one: its last
    /// event handed to the connection); `None` while it is still being sent, or for
    /// errors and cut streams.
    pub fn sent_at(&self, index: usize) -> Option<Instant> {
        self.shared
            .sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(&index)
            .copied()
    }

    /// All requests received so far, in arrival order.
    pub fn requests(&self) -> Vec<RecordedRequest> {
        let script = self.shared.script();
        script.requests.iter().map(|r| r.as_ref().clone()).collect()
    }

    /// The requests received so far that are not title requests
    /// ([`RecordedRequest::asks_for_title`]), in arrival order: a conversation's turns,
    /// whatever titles were asked for beside them.
    pub fn turn_requests(&self) -> Vec<RecordedRequest> {
        let mut requests = self.requests();
        requests.retain(|r| !r.asks_for_title());
        requests
    }

    /// Request `index` (0-based arrival order), if it arrived.
    pub fn request(&self, index: usize) -> Option<RecordedRequest> {
        let script = self.shared.script();
        script.requests.get(index).map(|r| r.as_ref().clone())
    }

    /// How many requests have been received so far.
    pub fn request_count(&self) -> usize {
        *self.shared.arrived.borrow()
    }

    /// Answer any request for `path` (`/props`, `/v1/models`, `/api/show`: what a model
    /// server says about itself) with `json`; other paths than the chat completions
    /// stay 404. Such requests are counted ([`Self::info_requests`]), not recorded.
    pub fn serve_info(&self, path: impl Into<String>, json: Value) {
        self.shared.script().info.insert(path.into(), (json, 0));
    }

    /// How many requests for the `path` given to [`Self::serve_info`] arrived.
    pub fn info_requests(&self, path: &str) -> usize {
        self.shared.script().info.get(path).map_or(0, |(_, n)| *n)
    }

    /// Wait until at least `count` requests have arrived, then return all of them.
    pub async fn wait_for_requests(
        &self,
        count: usize,
        timeout: Duration,
    ) -> Result<Vec<RecordedRequest>, TestkitError> {
        let mut arrived = self.shared.arrived.subscribe();
        let waited = tokio::time::timeout(timeout, arrived.wait_for(|n| *n >= count)).await;
        match waited {
            Ok(Ok(_)) => Ok(self.requests()),
            _ => Err(TestkitError::Timeout {
                expected: count,
                arrived: self.request_count(),
                timeout,
            }),
        }
    }

    /// Stop the server: in-flight streams and delays end at once (streams are cut),
    /// then wait (at most five seconds) for the server task to finish.
    pub async fn shutdown(mut self) {
        self.shared.shutdown.send_replace(true);
        if let Some(mut task) = self.task.take()
            && tokio::time::timeout(Duration::from_secs(5), &mut task)
                .await
                .is_err()
        {
            task.abort();
        }
    }
}

impl Drop for TestModel {
    fn drop(&mut self) {
        self.shared.shutdown.send_replace(true);
        if let Some(task) = self.task.take() {
            task.abort();
        }
    }
}

/// The chat completions handler: record, pick the scripted response, render it.
async fn chat(
    State(shared): State<Arc<Shared>>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    let (parsed, not_json) = match serde_json::from_slice::<Value>(&body) {
        Ok(value) => (value, None),
        Err(error) => (Value::Null, Some(error)),
    };
    let request = RecordedRequest {
        index: 0,
        path: uri.path().to_owned(),
        body: parsed,
        authorization: headers
            .get(axum::http::header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        headers: headers
            .iter()
            .filter_map(|(name, value)| Some((name.to_string(), value.to_str().ok()?.to_owned())))
            .collect(),
    };
    // Recorded once, shared with the responder and the renderer (bodies grow with the
    // conversation; copying each one is what a busy benchmark would pay for).
    let (request, queued, responder) = {
        let mut script = shared.script();
        let request = Arc::new(RecordedRequest {
            index: script.requests.len(),
            ..request
        });
        script.requests.push(Arc::clone(&request));
        shared.arrived.send_replace(script.requests.len());
        if let Some(error) = not_json {
            let message = format!(
                "smallebot-testkit: the body of request #{} is not JSON: {error}",
                request.index
            );
            return testkit_error(StatusCode::BAD_REQUEST, message);
        }
        let side = script
            .side_routes
            .iter()
            .find(|(matches, _)| matches(&request))
            .map(|(_, responder)| Arc::clone(responder));
        let queued = side.is_none().then(|| script.queue.pop_front()).flatten();
        let responder = side.or_else(|| {
            if queued.is_none() {
                script.responder.clone()
            } else {
                None
            }
        });
        (request, queued, responder)
    };
    let scripted = match (queued, responder) {
        (Some(scripted), _) => scripted,
        (None, Some(responder)) => {
            match std::panic::catch_unwind(AssertUnwindSafe(|| responder(&request))) {
                Ok(scripted) => scripted,
                Err(_) => {
                    let message = format!(
                        "smallebot-testkit: the responder panicked on request #{}",
                        request.index
                    );
                    return testkit_error(StatusCode::INTERNAL_SERVER_ERROR, message);
                }
            }
        }
        (None, None) => {
            let message = format!(
                "smallebot-testkit: no scripted response left for request #{} (0-based arrival \
                 index; the queue is empty and no responder is set). Last user message: {:?}",
                request.index,
                request.last_user_text().unwrap_or_default()
            );
            return testkit_error(StatusCode::INTERNAL_SERVER_ERROR, message);
        }
    };
    let index = request.index;
    let recorder = Arc::clone(&shared);
    let on_sent = Box::new(move || {
        recorder
            .sent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(index, Instant::now());
    });
    render(
        scripted,
        &request,
        body.len(),
        shared.shutdown.subscribe(),
        on_sent,
    )
    .await
}

/// A path given to [`TestModel::serve_info`], else 404.
async fn info_or_not_found(State(shared): State<Arc<Shared>>, uri: Uri) -> Response {
    let served = shared.script().info.get_mut(uri.path()).map(|(json, n)| {
        *n += 1;
        json.clone()
    });
    match served {
        Some(json) => axum::response::IntoResponse::into_response(axum::Json(json)),
        None => not_found(uri).await,
    }
}

async fn not_found(uri: Uri) -> Response {
    let message = format!(
        "smallebot-testkit: no route for {}; only POST /v1/chat/completions is served",
        uri.path()
    );
    testkit_error(StatusCode::NOT_FOUND, message)
}
