//! An MCP tool result as the text the model reads: text blocks joined, images, audio and
//! binary resources described by type and size, embedded text resources inlined.

use serde_json::Value;

/// The text of a `CallToolResult` (as JSON) and whether the server said it failed.
pub(crate) fn result_text(result: &Value) -> (String, bool) {
    let failed = result.get("isError").and_then(Value::as_bool) == Some(true);
    let mut parts: Vec<String> = result
        .get("content")
        .and_then(Value::as_array)
        .map(|blocks| blocks.iter().map(block_text).collect())
        .unwrap_or_default();
    if parts.is_empty()
        && let Some(structured) = result.get("structuredContent")
    {
        parts.push(structured.to_string());
    }
    let text = if parts.is_empty() {
        "(no output)".to_owned()
    } else {
        parts.join("\n")
    };
    (text, failed)
}

/// One content block.
pub(crate) fn block_text(block: &Value) -> String {
    let field = |name: &str| block.get(name).and_then(Value::as_str);
    let size = |data: Option<&str>| base64_len(data.unwrap_or(""));
    match field("type") {
        Some("text") => field("text").unwrap_or("").to_owned(),
        Some(kind @ ("image" | "audio")) => format!(
            "[{kind}: {}, {} bytes]",
            field("mimeType").unwrap_or("unknown type"),
            size(field("data"))
        ),
        Some("resource") => {
            let resource = block.get("resource").unwrap_or(&Value::Null);
            let inner = |name: &str| resource.get(name).and_then(Value::as_str);
            match (inner("text"), inner("blob")) {
                (Some(text), _) => text.to_owned(),
                (None, blob) => format!(
                    "[resource {}: {}, {} bytes]",
                    inner("uri").unwrap_or("?"),
                    inner("mimeType").unwrap_or("unknown type"),
                    size(blob)
                ),
            }
        }
        Some("resource_link") => format!(
            "[resource link: {}{}]",
            field("uri").unwrap_or("?"),
            field("name").map(|n| format!(" ({n})")).unwrap_or_default()
        ),
        other => format!("[{} content]", other.unwrap_or("unknown")),
    }
}

/// The decoded size of base64 text.
pub(crate) fn base64_len(data: &str) -> usize {
    let data = data.trim_end_matches('=');
    data.len() * 3 / 4
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn content_table() {
        let cases = [
            (
                json!({"content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]}),
                "a\nb",
                false,
            ),
            (
                json!({"content": [{"type": "text", "text": "boom"}], "isError": true}),
                "boom",
                true,
            ),
            (
                json!({"content": [{"type": "image", "data": "AAAA", "mimeType": "image/png"}]}),
                "[image: image/png, 3 bytes]",
                false,
            ),
            (
                json!({"content": [{"type": "audio", "data": "AAA=", "mimeType": "audio/wav"}]}),
                "[audio: audio/wav, 2 bytes]",
                false,
            ),
            (
                json!({"content": [{"type": "resource", "resource": {"uri": "f://a", "text": "inline"}}]}),
                "inline",
                false,
            ),
            (
                json!({"content": [{"type": "resource", "resource": {"uri": "f://b", "blob": "AAAAAAAA", "mimeType": "application/zip"}}]}),
                "[resource f://b: application/zip, 6 bytes]",
                false,
            ),
            (
                json!({"content": [{"type": "resource_link", "uri": "f://c", "name": "c"}]}),
                "[resource link: f://c (c)]",
                false,
            ),
            (
                json!({"content": [], "structuredContent": {"n": 1}}),
                "{\"n\":1}",
                false,
            ),
            (json!({"content": []}), "(no output)", false),
            (
                json!({"content": [{"type": "video"}]}),
                "[video content]",
                false,
            ),
        ];
        for (result, text, failed) in cases {
            assert_eq!(result_text(&result), (text.to_owned(), failed), "{result}");
        }
    }
}
