//! What the full-text index holds for an attachment ([`searchable_text`]): the same on
//! every store, so both find the same attachments for the same words.

use crate::entities::{AttachmentFacts, AttachmentKind};

/// How much of a text attachment is indexed, in characters: its start, the part
/// PostgreSQL's index holds of any text (a log of hundreds of megabytes would swell
/// the index, and both stores must find the same words).
pub const MAX_INDEXED_TEXT_CHARS: usize = 100_000;

/// The indexed text of an attachment: its name and, for a text file, the first
/// [`MAX_INDEXED_TEXT_CHARS`] characters of its content on the next line (bytes that
/// are not UTF-8 become U+FFFD). Images and other files are found by name only.
#[must_use]
pub fn searchable_text(facts: &AttachmentFacts, content: &[u8]) -> String {
    if facts.kind != AttachmentKind::Text {
        return facts.name.clone();
    }
    // A character takes at most four bytes: decoding more could not add one.
    let head = &content[..content.len().min(MAX_INDEXED_TEXT_CHARS * 4)];
    let text: String = String::from_utf8_lossy(head)
        .chars()
        .take(MAX_INDEXED_TEXT_CHARS)
        .collect();
    format!("{}\n{text}", facts.name)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::attachment::describe;

    #[test]
    fn names_and_text_files_content_are_indexed() {
        let long = "é".repeat(MAX_INDEXED_TEXT_CHARS + 10);
        let cases: &[(&str, &[u8], String)] = &[
            (
                "notes.txt",
                b"hello world",
                "notes.txt\nhello world".to_owned(),
            ),
            ("shot.png", b"\x89PNG\r\n\x1a\n", "shot.png".to_owned()),
            ("spec.pdf", b"%PDF-1.7 binary", "spec.pdf".to_owned()),
            (
                "long.log",
                long.as_bytes(),
                format!("long.log\n{}", "é".repeat(MAX_INDEXED_TEXT_CHARS)),
            ),
        ];
        for (name, content, expected) in cases {
            let facts = describe(name, content);
            assert_eq!(&searchable_text(&facts, content), expected, "{name}");
        }
    }
}
