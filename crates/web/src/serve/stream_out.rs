//! Writes a long-lived response (an event stream) on its socket by itself: the head,
//! then each piece of the body as it comes (chunked on HTTP/1.1, up to the close on
//! HTTP/1.0), then the connection closes. Between pieces the connection holds no
//! buffer; the end of the client's side ends the response.

use std::io::Write as _;
use std::pin::Pin;
use std::task::{Context, Poll};

use axum::http::{HeaderMap, StatusCode, Version, header};
use axum::response::Response;
use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;

use super::OwnBody;

/// Writes `response`'s head to `stream` for a request made in `version` (`HTTP/1.0` or
/// `HTTP/1.1`); whether its body goes chunked, for [`Send`]. `None` when the write
/// failed (the client went).
pub(super) async fn write_head(
    stream: &mut TcpStream,
    response: Response,
    version: Version,
) -> Option<bool> {
    // Each event as soon as it is written (no waiting for the one before to be acked).
    let _ = stream.set_nodelay(true);
    let chunked = version == Version::HTTP_11;
    let (parts, _) = response.into_parts();
    let head = head(parts.status, &parts.headers, version, chunked);
    stream.write_all(&head).await.ok()?;
    Some(chunked)
}

/// Sends a body on its socket (after [`write_head`]) until it ends, the client goes or
/// a write fails; then closes the connection. What runs while the stream idles, a state
/// machine of its own: the socket, the body, and a buffer only while a piece is being
/// written.
pub(super) struct Send {
    stream: TcpStream,
    body: Box<dyn OwnBody>,
    chunked: bool,
    /// The piece being written (empty between pieces: no buffer held) and how much of
    /// it went.
    out: Vec<u8>,
    written: usize,
    /// The body ended: once `out` is written, close.
    ended: bool,
}

impl Send {
    /// Sends `body` on `stream`, chunked or not.
    pub(super) fn new(stream: TcpStream, body: Box<dyn OwnBody>, chunked: bool) -> Self {
        Self {
            stream,
            body,
            chunked,
            out: Vec::new(),
            written: 0,
            ended: false,
        }
    }

    /// Writes what `out` holds; ready with whether it all went (false: the write
    /// failed).
    fn poll_flush_out(&mut self, cx: &mut Context<'_>) -> Poll<bool> {
        while self.written < self.out.len() {
            match Pin::new(&mut self.stream).poll_write(cx, &self.out[self.written..]) {
                Poll::Ready(Ok(0) | Err(_)) => return Poll::Ready(false),
                Poll::Ready(Ok(n)) => self.written += n,
                Poll::Pending => return Poll::Pending,
            }
        }
        self.out = Vec::new();
        self.written = 0;
        Poll::Ready(true)
    }
}

impl Future for Send {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = self.get_mut();
        loop {
            let done = client_gone(&this.stream, cx).is_ready()
                || match this.poll_flush_out(cx) {
                    Poll::Ready(written) => !written || this.ended,
                    Poll::Pending => return Poll::Pending,
                };
            if done {
                let _ = Pin::new(&mut this.stream).poll_shutdown(cx);
                return Poll::Ready(());
            }
            match this.body.poll_piece(cx) {
                // An empty chunk would end a chunked body.
                Poll::Ready(Some(data)) if data.is_empty() => {}
                Poll::Ready(Some(data)) => this.out = frame(&data, this.chunked),
                Poll::Ready(None) => {
                    this.ended = true;
                    if this.chunked {
                        this.out = b"0\r\n\r\n".to_vec();
                    }
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

/// One piece of the body as written: as a chunk, or as it is.
fn frame(data: &[u8], chunked: bool) -> Vec<u8> {
    if !chunked {
        return data.to_vec();
    }
    let mut framed = Vec::with_capacity(data.len() + 12);
    let _ = write!(framed, "{:x}\r\n", data.len());
    framed.extend_from_slice(data);
    framed.extend_from_slice(b"\r\n");
    framed
}

/// Ready once the client closed its side (or the socket failed); pending (`cx` woken
/// when the socket is readable) otherwise. Bytes it sends meanwhile (nothing is
/// expected after the request) are read and dropped.
fn client_gone(stream: &TcpStream, cx: &mut Context<'_>) -> Poll<()> {
    let mut scratch = [0u8; 16];
    loop {
        match stream.poll_read_ready(cx) {
            Poll::Ready(Ok(())) => {}
            Poll::Ready(Err(_)) => return Poll::Ready(()),
            Poll::Pending => return Poll::Pending,
        }
        match stream.try_read(&mut scratch) {
            Ok(0) => return Poll::Ready(()),
            // Dropped; a read that would block clears the readiness: wait again.
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return Poll::Ready(()),
        }
    }
}

/// The response's head: its status and headers, the framing of its body, and
/// `connection: close` (the connection serves nothing after it).
fn head(status: StatusCode, headers: &HeaderMap, version: Version, chunked: bool) -> Vec<u8> {
    let mut head = Vec::with_capacity(256);
    let version = if version == Version::HTTP_10 {
        "HTTP/1.0"
    } else {
        "HTTP/1.1"
    };
    let _ = write!(
        head,
        "{version} {} {}\r\n",
        status.as_u16(),
        status.canonical_reason().unwrap_or("")
    );
    for (name, value) in headers {
        let framing = [
            header::CONNECTION,
            header::TRANSFER_ENCODING,
            header::CONTENT_LENGTH,
        ];
        if framing.contains(name) || name.as_str() == "keep-alive" {
            continue;
        }
        head.extend_from_slice(name.as_str().as_bytes());
        head.extend_from_slice(b": ");
        head.extend_from_slice(value.as_bytes());
        head.extend_from_slice(b"\r\n");
    }
    if chunked {
        head.extend_from_slice(b"transfer-encoding: chunked\r\n");
    }
    head.extend_from_slice(b"connection: close\r\n\r\n");
    head
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn the_head_keeps_the_headers_and_frames_the_body_itself() {
        let mut headers = HeaderMap::new();
        headers.insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("text/event-stream"),
        );
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from_static("12"));
        headers.insert(header::CONNECTION, HeaderValue::from_static("keep-alive"));
        headers.insert("keep-alive", HeaderValue::from_static("timeout=5"));
        let cases = [
            (
                Version::HTTP_11,
                true,
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                 transfer-encoding: chunked\r\nconnection: close\r\n\r\n",
            ),
            (
                Version::HTTP_10,
                false,
                "HTTP/1.0 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n",
            ),
        ];
        for (version, chunked, expected) in cases {
            let written = head(StatusCode::OK, &headers, version, chunked);
            assert_eq!(String::from_utf8(written).unwrap(), expected, "{version:?}");
        }
    }

    #[test]
    fn a_piece_is_a_chunk_on_http_1_1_and_itself_on_http_1_0() {
        let piece = vec![b'x'; 26];
        let mut chunk = b"1a\r\n".to_vec();
        chunk.extend_from_slice(&piece);
        chunk.extend_from_slice(b"\r\n");
        assert_eq!(frame(&piece, true), chunk);
        assert_eq!(frame(&piece, false), piece);
    }
}
