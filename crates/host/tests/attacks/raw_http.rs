//! A request over a bare connection, for bodies the server refuses before it has read
//! them (over its limit): the body is written while the answer is read, a failed write
//! ignored — the server may close the connection on the unread rest, and an HTTP
//! client that stops at that failed write would lose the answer the server did send.

use reqwest::StatusCode;
use tokio::io::{AsyncReadExt, AsyncWriteExt};

use crate::harness::{PATIENCE, Server, User};

/// An answer: status, content type, body (chunked transfer decoded).
pub struct Answer {
    /// The status.
    pub status: StatusCode,
    /// The `content-type` header, empty when absent.
    pub content_type: String,
    /// The body as text.
    pub body: String,
}

/// `POST path` as `user`, with `content_type` and `body`, over a connection of its own.
pub async fn post(
    server: &Server,
    user: &User<'_>,
    path: &str,
    content_type: &str,
    body: &[u8],
) -> Answer {
    let host = server.url("").trim_start_matches("http://").to_owned();
    let mut request = format!(
        "POST {path} HTTP/1.1\r\nHost: {host}\r\nAuthorization: Bearer {}\r\n\
         Content-Type: {content_type}\r\nContent-Length: {}\r\nConnection: close\r\n\r\n",
        user.token(),
        body.len()
    )
    .into_bytes();
    request.extend_from_slice(body);
    let mut stream = tokio::net::TcpStream::connect(&host).await.unwrap();
    let (mut read, mut write) = stream.split();
    let (_written, answer) = tokio::join!(write.write_all(&request), async {
        let mut answer = Vec::new();
        let mut buf = [0u8; 16 * 1024];
        loop {
            match tokio::time::timeout(PATIENCE, read.read(&mut buf)).await {
                Ok(Ok(n)) if n > 0 => answer.extend_from_slice(&buf[..n]),
                Ok(_) => break,
                Err(_) => panic!("no answer to POST {path} within {PATIENCE:?}"),
            }
        }
        answer
    });
    parse(&String::from_utf8_lossy(&answer))
}

/// An HTTP/1.1 answer as read off the connection.
fn parse(raw: &str) -> Answer {
    let (head, rest) = raw
        .split_once("\r\n\r\n")
        .unwrap_or_else(|| panic!("no complete answer head: {raw:.300}"));
    let mut lines = head.lines();
    let status_line = lines.next().unwrap();
    let code: u16 = status_line
        .split(' ')
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or_else(|| panic!("{status_line}"));
    let header = |name: &str| {
        head.lines()
            .skip(1)
            .filter_map(|l| l.split_once(':'))
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.trim().to_owned())
    };
    let body = if header("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        dechunk(rest)
    } else {
        rest.to_owned()
    };
    Answer {
        status: StatusCode::from_u16(code).unwrap(),
        content_type: header("content-type").unwrap_or_default(),
        body,
    }
}

/// A chunked body decoded.
fn dechunk(mut rest: &str) -> String {
    let mut body = String::new();
    while let Some((size, after)) = rest.split_once("\r\n") {
        let size = usize::from_str_radix(size.trim(), 16).unwrap_or(0);
        if size == 0 || after.len() < size {
            break;
        }
        body.push_str(&after[..size]);
        rest = after[size..].trim_start_matches("\r\n");
    }
    body
}
