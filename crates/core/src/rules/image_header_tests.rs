use super::*;
use crate::rules::image_samples::*;

const HTML: &[u8] = b"<!DOCTYPE html><html><script>alert(document.cookie)</script></html>";

fn with_byte(content: &[u8], at: usize, byte: u8) -> Vec<u8> {
    let mut changed = content.to_vec();
    changed[at] = byte;
    changed
}

fn size(width: u32, height: u32) -> ImageSize {
    ImageSize { width, height }
}

#[test]
fn real_images_of_each_format_decode_with_their_size() {
    let cases: &[(&str, &[u8], ImageFormat)] = &[
        ("png", PNG, ImageFormat::Png),
        ("jpeg", JPEG, ImageFormat::Jpeg),
        ("gif", GIF, ImageFormat::Gif),
        ("webp lossy", WEBP_LOSSY, ImageFormat::Webp),
        ("webp lossless", WEBP_LOSSLESS, ImageFormat::Webp),
        ("webp extended", WEBP_EXTENDED, ImageFormat::Webp),
        // A header that decodes is enough: the pixels are not decoded.
        ("png header", &png_stating(1280, 720), ImageFormat::Png),
    ];
    for (case, content, format) in cases {
        let expected = if *case == "png header" {
            size(1280, 720)
        } else {
            size(3, 2)
        };
        assert_eq!(
            inspect_image(content),
            Some((*format, Ok(expected))),
            "{case}"
        );
    }
}

#[test]
fn broken_headers_do_not_decode() {
    let signature_then_html = |signature: &[u8]| [signature, HTML].concat();
    let mut bad_crc = png_stating(10, 10);
    bad_crc[29] ^= 1;
    let cases: Vec<(&str, Vec<u8>, ImageFormat)> = vec![
        (
            "png signature then html",
            signature_then_html(b"\x89PNG\r\n\x1a\n"),
            ImageFormat::Png,
        ),
        ("png ihdr crc wrong", bad_crc, ImageFormat::Png),
        (
            "png cut before its image data",
            png_stating(10, 10)[..33].to_vec(),
            ImageFormat::Png,
        ),
        (
            "png signature alone",
            b"\x89PNG\r\n\x1a\n".to_vec(),
            ImageFormat::Png,
        ),
        (
            "jpeg signature then html",
            signature_then_html(b"\xff\xd8\xff\xe0"),
            ImageFormat::Jpeg,
        ),
        (
            "jpeg cut before its scan",
            JPEG[..JPEG.len() - 40].to_vec(),
            ImageFormat::Jpeg,
        ),
        (
            "gif screen then html",
            signature_then_html(b"GIF89a\x04\x00\x03\x00"),
            ImageFormat::Gif,
        ),
        (
            "gif without an image",
            b"GIF89a\x04\x00\x03\x00\x00\x00\x00\x3b".to_vec(),
            ImageFormat::Gif,
        ),
        (
            "webp riff then html",
            signature_then_html(b"RIFF\x40\x00\x00\x00WEBP"),
            ImageFormat::Webp,
        ),
        ("webp cut", WEBP_LOSSY[..24].to_vec(), ImageFormat::Webp),
        (
            "webp vp8x without its image",
            WEBP_EXTENDED[..30].to_vec(),
            ImageFormat::Webp,
        ),
    ];
    for (case, content, format) in cases {
        let found = inspect_image(&content);
        assert!(
            matches!(
                &found,
                Some((f, Err(ImageProblem::Undecodable { reason }))) if *f == format && !reason.is_empty()
            ),
            "{case}: {found:?}"
        );
    }
}

#[test]
fn a_png_chunk_is_named_by_its_type() {
    let found = inspect_image(&[&b"\x89PNG\r\n\x1a\n"[..], HTML].concat());
    assert_eq!(
        found,
        Some((
            ImageFormat::Png,
            Err(ImageProblem::Undecodable {
                reason: "CTYP chunk appeared before IHDR chunk".to_owned()
            })
        ))
    );
}

#[test]
fn sizes_past_the_limits_are_refused_even_where_the_rest_is_well_formed() {
    // The VP8L header from byte 21: width-1 and height-1 in 14 bits each, then the
    // alpha bit and the version.
    let mut vp8l_large = WEBP_LOSSLESS.to_vec();
    let header = u32::from_le_bytes(vp8l_large[21..25].try_into().unwrap());
    let stated = 11_999 | (11_999 << 14) | (header & 0xf000_0000);
    vp8l_large[21..25].copy_from_slice(&stated.to_le_bytes());
    let cases: Vec<(&str, Vec<u8>, ImageSize)> = vec![
        (
            "100 000 a side",
            png_stating(100_000, 100_000),
            size(100_000, 100_000),
        ),
        ("one side too long", png_stating(16_385, 1), size(16_385, 1)),
        (
            "too many pixels",
            png_stating(16_384, 6_104),
            size(16_384, 6_104),
        ),
        // Letters where the size goes: `GIF89a<html>` states 26 684 × 28 020.
        (
            "gif screen of text",
            b"GIF89a<html><body>hi</body></html>".to_vec(),
            size(0x683c, 0x6d74),
        ),
        ("webp of 144 megapixels", vp8l_large, size(12_000, 12_000)),
        (
            "gif of no pixels",
            with_byte(&with_byte(GIF, 6, 0), 8, 0),
            size(0, 0),
        ),
    ];
    for (case, content, stated) in cases {
        let found = inspect_image(&content).map(|(_, result)| result);
        assert_eq!(found, Some(Err(ImageProblem::Oversized(stated))), "{case}");
    }
    assert_eq!(
        inspect_image(&png_stating(16_384, 6_103)).map(|(_, r)| r),
        Some(Ok(size(16_384, 6_103))),
        "just under 100 megapixels"
    );
}

#[test]
fn only_a_whole_signature_claims_a_format() {
    let cases: &[(&[u8], Option<ImageFormat>)] = &[
        (b"GIFs are fun", None),
        (b"GIF87a", Some(ImageFormat::Gif)),
        (b"\x89PNG", None),
        (b"\xff\xd8", None),
        (b"RIFF\0\0\0\0WAVE", None),
        (b"RIFF\0\0\0\0WEBP", Some(ImageFormat::Webp)),
        (b"plain text", None),
        (b"", None),
    ];
    for (content, format) in cases {
        assert_eq!(
            ImageFormat::claimed_by(content),
            *format,
            "{}",
            String::from_utf8_lossy(content)
        );
        if format.is_none() {
            assert_eq!(inspect_image(content), None);
        }
    }
}
