//! Text helpers shared by the file tools: binary detection and line paging.

use std::io::{self, Read};

/// How many leading bytes are examined to decide whether a file is binary.
pub(crate) const SNIFF_BYTES: usize = 8 * 1024;

/// Whether a file's first bytes look binary (a NUL byte, as `grep` and `git` decide).
pub(crate) fn looks_binary(sample: &[u8]) -> bool {
    sample.contains(&0)
}

/// Drops an incomplete UTF-8 sequence left at the end of `bytes` by a cut.
pub(crate) fn trim_incomplete_utf8(bytes: &mut Vec<u8>) {
    if let Err(error) = std::str::from_utf8(bytes)
        && error.error_len().is_none()
    {
        bytes.truncate(error.valid_up_to());
    }
}

/// A window of lines read from a file.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Page {
    /// The shown bytes (whole lines, except a single line longer than the cap).
    pub text: Vec<u8>,
    /// How many lines were shown, counting a cut line.
    pub shown: u64,
    /// Whether the one shown line was cut at the byte cap.
    pub cut_line: bool,
    /// Lines in the file (a last line without `\n` counts), or a lower bound.
    pub total: u64,
    /// Whether `total` is exact (counting stops after `count_budget` bytes).
    pub total_exact: bool,
}

/// What to read: skip `offset` lines, show at most `limit` lines and `cap` bytes, and
/// keep counting lines for at most `count_budget` bytes after that.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Window {
    /// Lines to skip.
    pub offset: u64,
    /// Lines to show at most.
    pub limit: u64,
    /// Bytes to show at most.
    pub cap: usize,
    /// Bytes to keep scanning (to count lines) once the window is full.
    pub count_budget: u64,
}

/// Reads a window of lines from `reader` in bounded memory (even for one huge line).
pub(crate) fn read_window(mut reader: impl Read, window: Window) -> io::Result<Page> {
    let end = window.offset.saturating_add(window.limit);
    let mut page = Page::default();
    let mut chunk = vec![0_u8; 64 * 1024];
    let mut line: u64 = 0; // index of the line being scanned
    let mut line_start = 0_usize; // page.text length where the current line began
    let mut in_line = false; // bytes of the current line seen, no '\n' yet
    let mut collecting = true;
    let mut scanned_after: u64 = 0;
    loop {
        let read = match reader.read(&mut chunk) {
            Ok(0) => break,
            Ok(n) => n,
            Err(error) if error.kind() == io::ErrorKind::Interrupted => continue,
            Err(error) => return Err(error),
        };
        if !collecting {
            scanned_after += read as u64;
            if scanned_after > window.count_budget {
                page.total = line;
                return Ok(page);
            }
        }
        let mut rest = &chunk[..read];
        while !rest.is_empty() {
            let (segment, newline) = match rest.iter().position(|&b| b == b'\n') {
                Some(i) => (&rest[..=i], true),
                None => (rest, false),
            };
            rest = &rest[segment.len()..];
            if collecting && line >= window.offset && line < end {
                let room = window.cap - page.text.len();
                if segment.len() <= room {
                    page.text.extend_from_slice(segment);
                } else if line_start == 0 && page.shown == 0 {
                    // A single line longer than the cap: show its head.
                    page.text.extend_from_slice(&segment[..room]);
                    trim_incomplete_utf8(&mut page.text);
                    page.shown = 1;
                    page.cut_line = true;
                    collecting = false;
                } else {
                    page.text.truncate(line_start);
                    collecting = false;
                }
            }
            if newline {
                if collecting && line >= window.offset && line < end {
                    page.shown += 1;
                    line_start = page.text.len();
                }
                line += 1;
                in_line = false;
                if line >= end {
                    collecting = false;
                }
            } else {
                in_line = true;
            }
        }
    }
    if in_line {
        if collecting && line >= window.offset && line < end {
            page.shown += 1;
        }
        line += 1;
    }
    page.total = line;
    page.total_exact = true;
    Ok(page)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]

    use super::*;

    fn window(offset: u64, limit: u64, cap: usize) -> Window {
        Window {
            offset,
            limit,
            cap,
            count_budget: u64::MAX,
        }
    }

    fn read(text: &str, w: Window) -> (String, u64, bool, u64) {
        let page = read_window(text.as_bytes(), w).unwrap();
        (
            String::from_utf8(page.text).unwrap(),
            page.shown,
            page.cut_line,
            page.total,
        )
    }

    #[test]
    fn windows_of_lines() {
        let text = "a\nb\nc\nd";
        assert_eq!(read(text, window(0, 100, 100)), (text.into(), 4, false, 4));
        assert_eq!(
            read(text, window(1, 2, 100)),
            ("b\nc\n".into(), 2, false, 4)
        );
        assert_eq!(read(text, window(3, 2, 100)), ("d".into(), 1, false, 4));
        assert_eq!(read(text, window(9, 2, 100)), (String::new(), 0, false, 4));
        assert_eq!(read("a\n", window(0, 9, 9)), ("a\n".into(), 1, false, 1));
        assert_eq!(read("", window(0, 9, 9)), (String::new(), 0, false, 0));
    }

    #[test]
    fn byte_cap_keeps_whole_lines_or_cuts_one_long_line() {
        assert_eq!(
            read("aa\nbb\ncc\n", window(0, 9, 7)),
            ("aa\nbb\n".into(), 2, false, 3)
        );
        assert_eq!(read("ééé\nx\n", window(0, 9, 3)), ("é".into(), 1, true, 2));
    }

    #[test]
    fn counting_stops_after_the_budget() {
        let text = "x\n".repeat(200_000);
        let page = read_window(
            text.as_bytes(),
            Window {
                count_budget: 1,
                ..window(0, 1, 100)
            },
        )
        .unwrap();
        assert_eq!(page.shown, 1);
        assert!(!page.total_exact);
        assert!(page.total >= 1 && page.total < 200_000);
    }

    #[test]
    fn incomplete_utf8_is_trimmed() {
        let mut bytes = "aé".as_bytes()[..2].to_vec();
        trim_incomplete_utf8(&mut bytes);
        assert_eq!(bytes, b"a");
        assert!(looks_binary(b"a\0b"));
        assert!(!looks_binary("héllo".as_bytes()));
    }
}
