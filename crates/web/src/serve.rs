//! [`serve`]: the web app's connections, as `axum::serve` serves them (HTTP/1.1 through
//! hyper, each request with its peer's [`ConnectInfo`]), except that a response marked
//! [`OwnConnection`] (an event stream) takes its socket from hyper and is written by a
//! small task of its own: an idle stream then holds its socket, its body and that task,
//! not hyper's connection with its 8 KiB read and 8 KiB write buffers.

mod detach;
mod stream_out;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use axum::Router;
use axum::body::Body;
use axum::extract::ConnectInfo;
use axum::http::{HeaderValue, Method, Request, Version, header};
use axum::response::Response;
use hyper::body::Incoming;
use hyper_util::rt::TokioIo;
use tokio::net::{TcpListener, TcpStream};
use tower::ServiceExt;

use detach::{Detach, Detachable};

/// Marks a response that lasts as long as its client wants it (an event stream): on
/// HTTP/1.x it leaves hyper's connection and is written on its socket by itself, which
/// then closes (`connection: close`). Only `GET` responses are taken so.
#[derive(Debug, Clone, Copy)]
pub(crate) struct OwnConnection;

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
    let response = app.oneshot(request.map(Body::new)).await?;
    if takes_socket
        && response.extensions().get::<OwnConnection>().is_some()
        && let Some(mut stream) = detach.take()
    {
        // The head from here; the body by a task holding only the socket and the body.
        if let Some((body, chunked)) = stream_out::write_head(&mut stream, response, version).await
        {
            tokio::spawn(stream_out::send(stream, body, chunked));
        }
        let mut placeholder = Response::new(Body::empty());
        placeholder
            .headers_mut()
            .insert(header::CONNECTION, HeaderValue::from_static("close"));
        return Ok(placeholder);
    }
    Ok(response)
}
