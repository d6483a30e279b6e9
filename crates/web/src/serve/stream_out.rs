//! Writes a long-lived response (an event stream) on its socket by itself: the head,
//! then each piece of the body as it comes (chunked on HTTP/1.1, up to the close on
//! HTTP/1.0), then the connection closes. Between pieces the connection holds no
//! buffer; the end of the client's side ends the response.

use std::io::Write as _;

use axum::body::Body;
use axum::http::{HeaderMap, StatusCode, Version, header};
use axum::response::Response;
use futures::StreamExt;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpStream;

/// Writes `response`'s head to `stream` for a request made in `version` (`HTTP/1.0` or
/// `HTTP/1.1`); its body and whether it goes chunked, for [`send`]. `None` when the
/// write failed (the client went).
pub(super) async fn write_head(
    stream: &mut TcpStream,
    response: Response,
    version: Version,
) -> Option<(Body, bool)> {
    // Each event as soon as it is written (no waiting for the one before to be acked).
    let _ = stream.set_nodelay(true);
    let chunked = version == Version::HTTP_11;
    let (parts, body) = response.into_parts();
    let head = head(parts.status, &parts.headers, version, chunked);
    stream.write_all(&head).await.ok()?;
    Some((body, chunked))
}

/// Sends `body` on `stream` (after [`write_head`]) until it ends, the client goes or a
/// write fails; then closes the connection. What runs while the stream idles: it holds
/// only the socket and the body.
pub(super) async fn send(mut stream: TcpStream, body: Body, chunked: bool) {
    if send_body(&mut stream, body, chunked).await && chunked {
        let _ = stream.write_all(b"0\r\n\r\n").await;
    }
    let _ = stream.shutdown().await;
}

/// Sends `body`'s pieces; whether it ended (rather than the client going, a write
/// failing or the body failing).
async fn send_body(stream: &mut TcpStream, body: Body, chunked: bool) -> bool {
    let mut pieces = body.into_data_stream();
    loop {
        let piece = tokio::select! {
            piece = pieces.next() => piece,
            () = client_gone(stream) => return false,
        };
        let data = match piece {
            None => return true,
            Some(Err(_)) => return false,
            Some(Ok(data)) => data,
        };
        // An empty chunk would end a chunked body.
        if data.is_empty() {
            continue;
        }
        if stream.write_all(&frame(&data, chunked)).await.is_err() {
            return false;
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

/// Resolves once the client closed its side (or the socket failed). Bytes it sends
/// meanwhile (nothing is expected after the request) are read and dropped.
async fn client_gone(stream: &TcpStream) {
    let mut scratch = [0u8; 16];
    loop {
        if stream.readable().await.is_err() {
            return;
        }
        match stream.try_read(&mut scratch) {
            Ok(0) => return,
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
            Err(_) => return,
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
