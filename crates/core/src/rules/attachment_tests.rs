use super::*;
use crate::rules::image_samples::{
    GIF, JPEG, PNG, WEBP_EXTENDED, WEBP_LOSSLESS, WEBP_LOSSY, png_stating,
};

fn png(width: u32, height: u32) -> Vec<u8> {
    png_stating(width, height)
}

#[test]
fn kind_and_type_come_from_the_content_not_the_name() {
    let cases: Vec<(&str, Vec<u8>, AttachmentKind, &str)> = vec![
        (
            "shot.png",
            png(1280, 720),
            AttachmentKind::Image,
            "image/png",
        ),
        ("notes.txt", png(10, 10), AttachmentKind::Image, "image/png"),
        ("anim.gif", GIF.to_vec(), AttachmentKind::Image, "image/gif"),
        (
            "photo.jpg",
            JPEG.to_vec(),
            AttachmentKind::Image,
            "image/jpeg",
        ),
        (
            "a.webp",
            WEBP_LOSSY.to_vec(),
            AttachmentKind::Image,
            "image/webp",
        ),
        (
            "photo.png",
            b"just text".to_vec(),
            AttachmentKind::Text,
            "text/plain",
        ),
        (
            "data.csv",
            b"a,b\n1,2\n".to_vec(),
            AttachmentKind::Text,
            "text/csv",
        ),
        (
            "cfg.JSON",
            b"{\"a\": 1}".to_vec(),
            AttachmentKind::Text,
            "application/json",
        ),
        (
            "README.md",
            "# Tïtle\n".as_bytes().to_vec(),
            AttachmentKind::Text,
            "text/markdown",
        ),
        (
            "logo.svg",
            b"<svg xmlns='http://www.w3.org/2000/svg'/>".to_vec(),
            AttachmentKind::Text,
            "image/svg+xml",
        ),
        ("empty.txt", Vec::new(), AttachmentKind::Text, "text/plain"),
        (
            "spec.pdf",
            b"%PDF-1.4\n1 0 obj\n".to_vec(),
            AttachmentKind::File,
            "application/pdf",
        ),
        (
            "a.zip",
            b"PK\x03\x04\x14\0\0\0".to_vec(),
            AttachmentKind::File,
            "application/zip",
        ),
        (
            "blob.bin",
            vec![0, 159, 146, 150],
            AttachmentKind::File,
            "application/octet-stream",
        ),
        (
            "nul.txt",
            b"a\0b".to_vec(),
            AttachmentKind::File,
            "application/octet-stream",
        ),
        // A PNG signature without a readable header is no image the model can be sent.
        (
            "cut.png",
            b"\x89PNG\r\n\x1a\n".to_vec(),
            AttachmentKind::File,
            "image/png",
        ),
    ];
    for (name, content, kind, media_type) in cases {
        let facts = describe(name, &content);
        assert_eq!(
            (facts.kind, facts.media_type.as_str()),
            (kind, media_type),
            "{name}"
        );
        assert_eq!(facts.size, i64::try_from(content.len()).unwrap(), "{name}");
    }
}

#[test]
fn an_image_has_its_size_and_other_kinds_none() {
    assert_eq!(
        describe("a.png", &png(1280, 720)).image_size,
        Some(ImageSize {
            width: 1280,
            height: 720
        })
    );
    let three_by_two = Some(ImageSize {
        width: 3,
        height: 2,
    });
    for image in [PNG, JPEG, GIF, WEBP_LOSSY, WEBP_LOSSLESS, WEBP_EXTENDED] {
        assert_eq!(describe("a", image).image_size, three_by_two);
    }
    assert_eq!(describe("a.txt", b"text").image_size, None);
    // Stating a size past the limit, or not decoding: no image.
    let huge = describe("huge.png", &png(100_000, 100_000));
    assert_eq!((huge.kind, huge.image_size), (AttachmentKind::File, None));
}

#[test]
fn a_file_that_starts_as_an_image_must_be_one() {
    let html = b"<!DOCTYPE html><html><script>alert(1)</script></html>";
    let png_then_html = [&b"\x89PNG\r\n\x1a\n"[..], html].concat();
    let cases: Vec<(&str, Vec<u8>, Option<&str>)> = vec![
        ("shot.png", PNG.to_vec(), None),
        ("photo.jpg", JPEG.to_vec(), None),
        ("anim.gif", GIF.to_vec(), None),
        ("a.webp", WEBP_EXTENDED.to_vec(), None),
        ("notes.txt", b"GIFs are fun".to_vec(), None),
        ("spec.pdf", b"%PDF-1.4\n".to_vec(), None),
        (
            "page.png",
            png_then_html,
            Some("'page.png' starts as a PNG image but is not one: its header does not decode ("),
        ),
        (
            "cut.jpg",
            JPEG[..JPEG.len() - 40].to_vec(),
            Some("'cut.jpg' starts as a JPEG image but is not one"),
        ),
        (
            "../huge\u{1b}.png",
            png(100_000, 100_000),
            Some(
                "'huge .png' is a PNG image stating 100000×100000 pixels: an image may have 1 \
                 to 16384 pixels a side and 100 megapixels in all. Scale it down and attach \
                 it again",
            ),
        ),
    ];
    for (name, content, refused) in cases {
        let checked = check_image(name, &content);
        match refused {
            None => assert_eq!(checked, Ok(()), "{name}"),
            Some(start) => {
                let refusal = checked.unwrap_err();
                assert!(refusal.is_about_content(), "{name}");
                assert!(refusal.to_string().starts_with(start), "{name}: {refusal}");
            }
        }
    }
    assert!(
        !AttachmentRefusal::FileTooLarge {
            name: "a".into(),
            size: 2,
            limit: 1
        }
        .is_about_content()
    );
}

#[test]
fn the_digest_is_sha256_in_lowercase_hex() {
    let cases = [
        (
            "",
            "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        ),
        (
            "abc",
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
        ),
    ];
    for (content, digest) in cases {
        assert_eq!(sha256_hex(content.as_bytes()), digest);
        assert_eq!(describe("x", content.as_bytes()).sha256, digest);
    }
}

#[test]
fn names_keep_only_their_last_component_cleaned() {
    let long = format!("{}.csv", "n".repeat(300));
    let cases: Vec<(&str, String)> = vec![
        ("report.pdf", "report.pdf".into()),
        ("../../etc/passwd", "passwd".into()),
        ("C:\\Users\\me\\shot.png", "shot.png".into()),
        ("dir/", FALLBACK_NAME.into()),
        ("..", FALLBACK_NAME.into()),
        ("", FALLBACK_NAME.into()),
        ("a\u{202E}gpj.exe", "a gpj.exe".into()),
        ("tab\there.txt", "tab here.txt".into()),
        (
            &long,
            format!("{}….csv", "n".repeat(MAX_NAME_BYTES - 4 - '…'.len_utf8())),
        ),
    ];
    for (name, cleaned) in cases {
        let got = clean_name(name);
        assert_eq!(got, cleaned, "{name}");
        assert!(got.len() <= MAX_NAME_BYTES, "{name}");
    }
    // A cut never splits a character.
    let wide = "é".repeat(150);
    assert!(clean_name(&wide).len() <= MAX_NAME_BYTES);
}

#[test]
fn image_tokens_follow_the_tile_formula() {
    let cases = [
        // 1 tile: 170 + 85.
        ((512, 512), 255),
        ((100, 100), 255),
        // 1024×1024 → shorter side 768 → 768×768 → 2×2 tiles.
        ((1024, 1024), 765),
        // 2048×4096 → fit 1024×2048 → shorter 768×1536 → 2×3 tiles.
        ((2048, 4096), 1105),
        // 1280×720: fits, shorter side 720 ≤ 768 → 3×2 tiles.
        ((1280, 720), 1105),
        ((0, 10), 85),
    ];
    for ((width, height), tokens) in cases {
        assert_eq!(
            image_tokens(ImageSize { width, height }),
            tokens,
            "{width}×{height}"
        );
    }
}

#[test]
fn limits_refuse_a_large_file_and_a_large_message() {
    let limits = AttachmentLimits {
        max_file_bytes: 100,
        max_message_bytes: 150,
        max_inline_tokens: 10,
    };
    assert_eq!(limits.check_file("a", 100), Ok(()));
    assert_eq!(
        limits.check_file("a", 101),
        Err(AttachmentRefusal::FileTooLarge {
            name: "a".into(),
            size: 101,
            limit: 100
        })
    );
    assert_eq!(limits.check_message([("a", 100), ("b", 50)]), Ok(()));
    assert_eq!(
        limits.check_message([("a", 100), ("b", 51)]),
        Err(AttachmentRefusal::MessageTooLarge {
            total: 151,
            limit: 150
        })
    );
    assert!(matches!(
        limits.check_message([("a", 10), ("big", 200)]),
        Err(AttachmentRefusal::FileTooLarge { .. })
    ));
    let message = AttachmentLimits::default()
        .check_file("huge.iso", 30 * 1024 * 1024)
        .unwrap_err()
        .to_string();
    assert_eq!(
        message,
        "'huge.iso' is 30 MB — over the limit of 20 MB per file (agent.json attachments.maxFileBytes)"
    );
}

#[test]
fn sizes_for_people() {
    let cases = [
        (0, "0 B"),
        (1023, "1023 B"),
        (1024, "1 KB"),
        (1536, "1.5 KB"),
        (12 * 1024 + 100, "12 KB"),
        (3_565_158, "3.4 MB"),
        (20 * 1024 * 1024, "20 MB"),
        (5 * 1024 * 1024 * 1024, "5 GB"),
    ];
    for (bytes, text) in cases {
        assert_eq!(human_size(bytes), text, "{bytes}");
    }
}
