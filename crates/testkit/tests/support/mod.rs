//! A deliberately plain HTTP/1.1 client over `TcpStream`, so the tests see exactly what
//! is on the wire (status, headers, chunked framing, whether the body was complete).

#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeMap;
use std::net::SocketAddr;
use std::time::Duration;

use serde_json::{Value, json};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// The API key the tests send.
pub const API_KEY: &str = "sk-testkit";

/// A response as read off the socket.
#[derive(Debug)]
pub struct RawResponse {
    pub status: u16,
    /// Lower-case header names.
    pub headers: Vec<(String, String)>,
    pub body: String,
    /// Whether the body framing completed (final 0-size chunk or full Content-Length).
    pub complete: bool,
}

impl RawResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("body is not JSON ({e}): {}", self.body))
    }

    /// The payloads of the `data:` lines, in order (including `[DONE]` and malformed ones).
    pub fn sse_data(&self) -> Vec<String> {
        self.body
            .split("\n\n")
            .filter(|event| !event.is_empty())
            .map(|event| {
                event
                    .strip_prefix("data: ")
                    .unwrap_or_else(|| panic!("SSE event without 'data: ': {event:?}"))
                    .to_owned()
            })
            .collect()
    }

    /// Every `data:` payload except `[DONE]`, parsed as JSON (panics on a malformed one).
    pub fn chunks(&self) -> Vec<Value> {
        self.sse_data()
            .iter()
            .filter(|d| *d != "[DONE]")
            .map(|d| {
                serde_json::from_str(d).unwrap_or_else(|e| panic!("chunk {d:?} is not JSON: {e}"))
            })
            .collect()
    }
}

/// A chat request body for `model`, with one user message.
pub fn chat_body(stream: bool, user: &str) -> Value {
    json!({
        "model": "gpt-test",
        "stream": stream,
        "messages": [{"role": "system", "content": "be brief"}, {"role": "user", "content": user}],
    })
}

/// POST `body` to `/v1/chat/completions` and read the whole response.
pub async fn post(addr: SocketAddr, body: &Value) -> RawResponse {
    let mut stream = send(addr, "/v1/chat/completions", &body.to_string()).await;
    read_all(&mut stream).await
}

/// Open a connection and send a POST; the response is left unread.
pub async fn send(addr: SocketAddr, path: &str, body: &str) -> TcpStream {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let request = format!(
        "POST {path} HTTP/1.1\r\nHost: {addr}\r\nAuthorization: Bearer {API_KEY}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    stream
}

/// Read until the end of the headers; returns (status, headers, bytes read past them).
pub async fn read_head(stream: &mut TcpStream) -> (u16, Vec<(String, String)>, Vec<u8>) {
    let mut raw = Vec::new();
    let mut buf = [0u8; 4096];
    loop {
        if let Some(end) = find(&raw, b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&raw[..end]).into_owned();
            let rest = raw[end + 4..].to_vec();
            let mut lines = head.split("\r\n");
            let status = lines
                .next()
                .unwrap()
                .split(' ')
                .nth(1)
                .unwrap()
                .parse()
                .unwrap();
            let headers = lines
                .filter_map(|line| line.split_once(':'))
                .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
                .collect();
            return (status, headers, rest);
        }
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "connection closed before the headers ended: {raw:?}");
        raw.extend_from_slice(&buf[..n]);
    }
}

/// Read the rest of the connection (until EOF or a reset) and decode the body framing.
pub async fn read_all(stream: &mut TcpStream) -> RawResponse {
    let (status, headers, mut raw) = read_head(stream).await;
    let mut buf = [0u8; 4096];
    loop {
        match tokio::time::timeout(Duration::from_secs(30), stream.read(&mut buf)).await {
            Ok(Ok(0) | Err(_)) => break,
            Ok(Ok(n)) => raw.extend_from_slice(&buf[..n]),
            Err(_) => panic!("response did not end within 30 s"),
        }
    }
    let map: BTreeMap<_, _> = headers.iter().cloned().collect();
    let (body, complete) = if map.get("transfer-encoding").map(String::as_str) == Some("chunked") {
        dechunk(&raw)
    } else {
        let length: usize = map
            .get("content-length")
            .map_or(raw.len(), |v| v.parse().unwrap());
        (raw.clone(), raw.len() >= length)
    };
    RawResponse {
        status,
        headers,
        body: String::from_utf8(body).unwrap(),
        complete,
    }
}

/// Decode a chunked body; `complete` is false when the final 0-size chunk is missing.
fn dechunk(mut raw: &[u8]) -> (Vec<u8>, bool) {
    let mut body = Vec::new();
    loop {
        let Some(line_end) = find(raw, b"\r\n") else {
            return (body, false);
        };
        let size_text = String::from_utf8_lossy(&raw[..line_end]);
        let size = usize::from_str_radix(size_text.split(';').next().unwrap().trim(), 16).unwrap();
        raw = &raw[line_end + 2..];
        if size == 0 {
            return (body, true);
        }
        if raw.len() < size {
            body.extend_from_slice(raw);
            return (body, false);
        }
        body.extend_from_slice(&raw[..size]);
        raw = raw.get(size + 2..).unwrap_or_default();
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// Concatenate one string field of every chunk's `choices[0].delta`.
pub fn delta_text(chunks: &[Value], field: &str) -> String {
    chunks
        .iter()
        .filter_map(|c| {
            c.pointer(&format!("/choices/0/delta/{field}"))
                .and_then(Value::as_str)
        })
        .collect()
}

/// Reassemble streamed tool calls by index: (id, name, arguments) per call.
pub fn reassemble_tool_calls(chunks: &[Value]) -> Vec<(String, String, String)> {
    let mut calls: BTreeMap<u64, (String, String, String)> = BTreeMap::new();
    for delta_call in chunks
        .iter()
        .filter_map(|c| {
            c.pointer("/choices/0/delta/tool_calls")
                .and_then(Value::as_array)
        })
        .flatten()
    {
        let entry = calls
            .entry(delta_call["index"].as_u64().unwrap())
            .or_default();
        if let Some(id) = delta_call["id"].as_str() {
            entry.0.push_str(id);
        }
        if let Some(name) = delta_call.pointer("/function/name").and_then(Value::as_str) {
            entry.1.push_str(name);
        }
        if let Some(args) = delta_call
            .pointer("/function/arguments")
            .and_then(Value::as_str)
        {
            entry.2.push_str(args);
        }
    }
    calls.into_values().collect()
}
