//! [`serve`]: the web app's connections, as `axum::serve` serves them (HTTP/1.1 through
//! hyper, each request with its peer's [`ConnectInfo`]), except that a response marked
//! [`OwnConnection`] (an event stream) takes its socket from hyper and is written by a
//! small task of its own: an idle stream then holds its socket, its body (an
//! [`OwnBody`], polled by hand: no nested futures) and that task, not hyper's connection
//! with its 8 KiB read and 8 KiB write buffers.

mod detach;
mod stream_out;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::{Arc, Mutex, PoisonError};
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Method, Request, Version, header};
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use detach::{Detach, Detachable};

/// A response body that lasts as long as its client wants it (an event stream),
/// polled by hand for its pieces (a state machine of its own rather than nested
/// futures: an idle one holds only its state).
pub(crate) trait OwnBody: Send + 'static {
    /// The next piece of the body; `None` at its end; pending (`cx` woken) until one
    /// is ready.
    fn poll_piece(&mut self, cx: &mut Context<'_>) -> Poll<Option<Bytes>>;
}

/// The body of a response marked [`OwnConnection`], until someone takes it.
type BodySlot = Arc<Mutex<Option<Box<dyn OwnBody>>>>;

/// Marks a response whose body is an [`OwnBody`]: on HTTP/1.x [`serve`] takes it and
/// the socket from hyper and writes it by a small task of its own, and the connection
/// then closes (`connection: close`). Only `GET` responses are taken so; otherwise the
/// response's own body (the same pieces) goes through hyper.
#[derive(Clone)]
pub(crate) struct OwnConnection(BodySlot);

impl OwnConnection {
    /// A response with `body`, marked so (its status and headers are the caller's to
    /// add).
    pub(crate) fn response(body: impl OwnBody) -> Response {
        let slot: BodySlot = Arc::new(Mutex::new(Some(Box::new(body))));
        let pieces = Arc::clone(&slot);
        let through_hyper = futures::stream::poll_fn(move |cx| {
            match pieces
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .as_mut()
            {
                Some(body) => body
                    .poll_piece(cx)
                    .map(|piece| piece.map(Ok::<_, Infallible>)),
                None => Poll::Ready(None),
            }
        });
        let mut response = Response::new(Body::from_stream(through_hyper));
        response.extensions_mut().insert(Self(slot));
        response
    }

    /// The body, out of the response (which then sends nothing).
    fn take(&self) -> Option<Box<dyn OwnBody>> {
        self.0.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// How long accepting waits after an error that is not one connection's (such as too
/// many open files) before it tries again.
const ACCEPT_PAUSE: Duration = Duration::from_secs(1);

/// Serves `app` on `listener` until the future is dropped: every connection in a task of
/// its own, its requests with the peer's address as [`ConnectInfo`]. Accepting goes on
/// after errors (a connection reset before it was accepted; too many open files, after a
/// pause), as `axum::serve` does.
pub async fn serve(listener: TcpListener, app: Router) {
    loop {
        match listener.accept().await {
            Ok((stream, peer)) => {
                tokio::spawn(connection(stream, peer, app.clone()));
            }
            Err(error) => {
                if !matches!(
                    error.kind(),
                    std::io::ErrorKind::ConnectionRefused
                        | std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::ConnectionReset
                ) {
                    tracing::error!(%error, "cannot accept a connection; trying again in 1 s");
                    tokio::time::sleep(ACCEPT_PAUSE).await;
                }
            }
        }
    }
}

/// Serves one connection's requests with hyper, until it closes or a response takes
/// the socket.
async fn connection(stream: TcpStream, peer: SocketAddr, app: Router) {
    let (io, detach) = Detachable::new(stream);
    let service = hyper::service::service_fn(move |request| {
        respond(request, peer, app.clone(), detach.clone())
    });
    let served = hyper::server::conn::http1::Builder::new()
        .serve_connection(TokioIo::new(io), service)
        .with_upgrades()
        .await;
    if let Err(error) = served {
        tracing::trace!(%error, %peer, "connection ended with an error");
    }
}

/// `app`'s response to `request`; a `GET` response marked [`OwnConnection`] is sent
/// by a task of its own on the socket taken from hyper, which gets a placeholder that
/// reaches no one.
async fn respond(
    mut request: Request<Incoming>,
    peer: SocketAddr,
    app: Router,
    detach: Detach,
) -> Result<Response, Infallible> {
    request.extensions_mut().insert(ConnectInfo(peer));
    let version = request.version();
    let takes_socket =
        request.method() == Method::GET && matches!(version, Version::HTTP_10 | Version::HTTP_11);
    let mut response = app.oneshot(request.map(Body::new)).await?;
    if takes_socket
        && let Some(own) = response.extensions_mut().remove::<OwnConnection>()
        && let Some(mut stream) = detach.take()
        && let Some(body) = own.take()
    {
        // The head from here; the body by a task holding only the socket and the body.
        if let Some(chunked) = stream_out::write_head(&mut stream, response, version).await {
            tokio::spawn(stream_out::Send::new(stream, body, chunked));
        }
        let mut placeholder = Response::new(Body::empty());
        placeholder
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return Ok(placeholder);
    }
    Ok(response)
}
