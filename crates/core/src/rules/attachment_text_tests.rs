use super::*;
use crate::entities::ImageSize;
use crate::ids::{AttachmentId, ConversationId};

/// One token per word-or-space run: easy to reason about in tables.
fn words(text: &str) -> i64 {
    i64::try_from(text.split_inclusive([' ', '\n']).count()).unwrap_or(i64::MAX)
}

#[test]
fn a_text_is_cut_at_the_last_line_that_fits_its_budget() {
    // (text, budget, kept, left out lines, left out bytes)
    let cases: &[(&str, i64, &str, usize, usize)] = &[
        ("one two\nthree\n", 10, "one two\nthree\n", 0, 0),
        ("one two\nthree four\nfive\n", 3, "one two\n", 2, 16),
        (
            "one two\nthree four\nfive\n",
            4,
            "one two\nthree four\n",
            1,
            5,
        ),
        (
            "one two\nthree four\nfive\n",
            5,
            "one two\nthree four\nfive\n",
            0,
            0,
        ),
        ("a b c d e f", 3, "a b c ", 1, 5),
        ("", 5, "", 0, 0),
    ];
    for &(text, budget, kept, lines, bytes) in cases {
        let cut = cut_to_budget(text, budget, &words);
        assert_eq!(cut.kept, kept, "{text:?} in {budget}");
        assert_eq!(cut.left_out_lines, lines, "{text:?} in {budget}");
        assert_eq!(cut.left_out_bytes, bytes, "{text:?} in {budget}");
        assert_eq!(cut.is_cut(), bytes > 0);
    }
}

#[test]
fn a_cut_never_splits_a_character_and_never_counts_a_huge_start() {
    let text = "é".repeat(10_000);
    let longest = std::cell::Cell::new(0);
    let count = |start: &str| {
        longest.set(longest.get().max(start.len()));
        i64::try_from(start.chars().count()).unwrap_or(i64::MAX)
    };
    let cut = cut_to_budget(&text, 100, &count);
    assert_eq!(cut.kept.chars().count(), 100);
    assert!(longest.get() <= 100 * 32, "{}", longest.get());
}

#[test]
fn the_inline_part_has_a_header_a_fence_and_a_marker_when_cut() {
    let whole = TextCut {
        kept: "a,b\n1,2\n",
        left_out_lines: 0,
        left_out_bytes: 0,
    };
    let cut = TextCut {
        kept: "line 1\n",
        left_out_lines: 1,
        left_out_bytes: 2048,
    };
    let fenced = TextCut {
        kept: "```rust\nfn main() {}\n```",
        left_out_lines: 0,
        left_out_bytes: 0,
    };
    let cases: &[(&str, i64, TextCut<'_>, &str)] = &[
        (
            "data.csv",
            8,
            whole,
            "Attached file data.csv (8 B):\n```\na,b\n1,2\n```",
        ),
        (
            "big.log",
            4096,
            cut,
            "Attached file big.log (4 KB):\n```\nline 1\n```\n[… 1 more line (2 KB) left out \
             to keep within 50 tokens; the whole file is in the workspace at \
             attachments/big.log]",
        ),
        (
            "notes.md",
            20,
            fenced,
            "Attached file notes.md (20 B):\n````\n```rust\nfn main() {}\n```\n````",
        ),
    ];
    for (name, size, cut, expected) in cases {
        assert_eq!(
            inline_part(name, *size, cut, 50, &format!("attachments/{name}")),
            *expected
        );
    }
    // Not saved (the caller says why): the marker claims no place.
    assert_eq!(
        inline_part("big.log", 4096, &cases[1].2, 50, ""),
        "Attached file big.log (4 KB):\n```\nline 1\n```\n[… 1 more line (2 KB) left out \
         to keep within 50 tokens]"
    );
}

#[test]
fn a_saved_file_is_named_with_its_path() {
    assert_eq!(
        saved_file_line(
            "spec.pdf",
            12 * 1024,
            "application/pdf",
            "attachments/spec.pdf"
        ),
        "Attached file spec.pdf (12 KB, application/pdf) is saved in the workspace at \
         attachments/spec.pdf; use your tools to read it."
    );
    assert!(
        unsaved_file_line("a.bin", 3, "application/octet-stream", "read-only")
            .contains("(read-only)")
    );
    assert_eq!(
        unseen_image_line("shot.png", 2048, "image/png", "attachments/shot.png"),
        "Attached image shot.png (2 KB, image/png) is saved in the workspace at \
         attachments/shot.png; it is not shown because the model in use does not see images."
    );
}

#[test]
fn workspace_names_are_tried_in_order() {
    let cases: &[(&str, [&str; 3])] = &[
        (
            "spec.pdf",
            [
                "attachments/spec.pdf",
                "attachments/spec-2.pdf",
                "attachments/spec-3.pdf",
            ],
        ),
        (
            "Makefile",
            [
                "attachments/Makefile",
                "attachments/Makefile-2",
                "attachments/Makefile-3",
            ],
        ),
        (
            ".env",
            [
                "attachments/.env",
                "attachments/.env-2",
                "attachments/.env-3",
            ],
        ),
        (
            "a.tar.gz",
            [
                "attachments/a.tar.gz",
                "attachments/a.tar-2.gz",
                "attachments/a.tar-3.gz",
            ],
        ),
    ];
    for (name, expected) in cases {
        let found: Vec<String> = workspace_candidates(name).take(3).collect();
        assert_eq!(found, expected.to_vec(), "{name}");
    }
}

#[test]
fn labels_name_the_attachment_and_its_size() {
    let attachment = |name: &str, kind, size, image_size| Attachment {
        id: AttachmentId::new(),
        conversation_id: ConversationId::new(),
        message_id: None,
        name: name.to_owned(),
        media_type: "x".to_owned(),
        kind,
        size,
        sha256: String::new(),
        image_size,
        created_at: chrono::Utc::now(),
    };
    let screen = Some(ImageSize {
        width: 1280,
        height: 720,
    });
    let cases = [
        (
            attachment("error.png", AttachmentKind::Image, 5000, screen),
            "[image: error.png 1280×720]",
        ),
        (
            attachment("odd.png", AttachmentKind::Image, 5000, None),
            "[image: odd.png 4.9 KB]",
        ),
        (
            attachment("spec.pdf", AttachmentKind::File, 12 * 1024, None),
            "[file: spec.pdf 12 KB]",
        ),
        (
            attachment("notes.txt", AttachmentKind::Text, 300, None),
            "[file: notes.txt 300 B]",
        ),
    ];
    for (attachment, expected) in cases {
        assert_eq!(attachment_label(&attachment), expected);
    }
}

/// What a cut keeps and leaves out: (kept, left out lines, left out bytes).
type Kept<'a> = Option<(&'a str, usize, usize)>;

#[test]
fn a_remembered_cut_is_rebuilt_from_its_length() {
    // (text, kept bytes, expected)
    let cases: &[(&str, usize, Kept<'_>)] = &[
        ("a\nb\nc\n", 2, Some(("a\n", 2, 4))),
        ("a\nb\nc\n", 6, Some(("a\nb\nc\n", 0, 0))),
        ("é", 1, None),
        ("ab", 3, None),
    ];
    for &(text, end, expected) in cases {
        let cut = TextCut::keeping(text, end).map(|c| (c.kept, c.left_out_lines, c.left_out_bytes));
        assert_eq!(cut, expected, "{text:?} at {end}");
    }
}
