//! Bounded capture of a command's output: the first and the last bytes are kept, the
//! middle is only counted, so memory stays bounded whatever the command prints.

use std::collections::VecDeque;

/// Whether `byte` starts a UTF-8 character (is not a continuation byte). Counting these
/// counts the characters of valid UTF-8 without decoding it.
fn starts_char(byte: u8) -> bool {
    byte & 0xC0 != 0x80
}

/// Output kept from a running command: up to `side` bytes of head and of tail.
#[derive(Debug)]
pub(crate) struct Capture {
    side: usize,
    head: Vec<u8>,
    tail: VecDeque<u8>,
    dropped_bytes: usize,
    dropped_chars: usize,
}

impl Capture {
    /// A capture able to return `max_chars` characters of head and tail exactly: each
    /// side keeps `4 * max_chars` bytes (a character is at most four bytes).
    pub(crate) fn new(max_chars: usize) -> Self {
        Self::with_side_bytes(max_chars.saturating_mul(4).max(4))
    }

    fn with_side_bytes(side: usize) -> Self {
        Self {
            side,
            head: Vec::new(),
            tail: VecDeque::new(),
            dropped_bytes: 0,
            dropped_chars: 0,
        }
    }

    /// Appends output as it arrives.
    pub(crate) fn push(&mut self, mut data: &[u8]) {
        let room = self.side - self.head.len();
        let into_head = room.min(data.len());
        self.head.extend_from_slice(&data[..into_head]);
        data = &data[into_head..];
        if data.len() > self.side {
            // Everything in the tail and the start of `data` falls out.
            let (gone, rest) = data.split_at(data.len() - self.side);
            self.drop_bytes(gone.iter().copied());
            let old: Vec<u8> = self.tail.drain(..).collect();
            self.drop_bytes(old);
            data = rest;
        }
        self.tail.extend(data);
        let overflow = self.tail.len().saturating_sub(self.side);
        if overflow > 0 {
            let gone: Vec<u8> = self.tail.drain(..overflow).collect();
            self.drop_bytes(gone);
        }
    }

    fn drop_bytes(&mut self, bytes: impl IntoIterator<Item = u8>) {
        for byte in bytes {
            self.dropped_bytes += 1;
            if starts_char(byte) {
                self.dropped_chars += 1;
            }
        }
    }

    /// The captured text (invalid UTF-8 replaced), at most `max_chars` characters: when
    /// longer, the first and the last halves joined by
    /// `\n... [N characters omitted] ...\n` (the format of `cap_head_tail`).
    pub(crate) fn finish(self, max_chars: usize) -> String {
        let mut tail: Vec<u8> = self.tail.into_iter().collect();
        if self.dropped_bytes == 0 {
            let mut all = self.head;
            all.append(&mut tail);
            let text = String::from_utf8_lossy(&all);
            return smallebot_core::rules::truncation::cap_head_tail(&text, max_chars).into_owned();
        }
        // The tail may start inside a character whose first byte was dropped.
        let skip = tail.iter().take_while(|b| !starts_char(**b)).count();
        let head = String::from_utf8_lossy(&self.head);
        let tail = String::from_utf8_lossy(&tail[skip..]);
        let tail_keep = max_chars / 2;
        let head_keep = max_chars - tail_keep;
        let head_total = head.chars().count();
        let tail_total = tail.chars().count();
        let head_end = head
            .char_indices()
            .nth(head_keep)
            .map_or(head.len(), |(at, _)| at);
        let tail_start = tail
            .char_indices()
            .nth(tail_total.saturating_sub(tail_keep))
            .map_or(tail.len(), |(at, _)| at);
        let omitted = head_total.saturating_sub(head_keep)
            + tail_total.saturating_sub(tail_keep)
            + self.dropped_chars;
        format!(
            "{}\n... [{omitted} characters omitted] ...\n{}",
            &head[..head_end],
            &tail[tail_start..]
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn short_output_is_returned_whole() {
        let mut capture = Capture::new(100);
        capture.push(b"hello ");
        capture.push(b"world\n");
        assert_eq!(capture.finish(100), "hello world\n");
    }

    #[test]
    fn output_within_the_buffers_uses_cap_head_tail() {
        let mut capture = Capture::new(4);
        capture.push(b"abcdefghij");
        assert_eq!(capture.finish(4), "ab\n... [6 characters omitted] ...\nij");
    }

    #[test]
    fn long_output_keeps_head_and_tail_and_counts_the_middle() {
        let mut capture = Capture::with_side_bytes(8);
        let text: String = (0..1000)
            .map(|i| char::from(b'a' + (i % 26) as u8))
            .collect();
        for chunk in text.as_bytes().chunks(7) {
            capture.push(chunk);
        }
        assert!(capture.head.len() <= 8 && capture.tail.len() <= 8);
        let out = capture.finish(6);
        let expected_tail = &text[997..];
        assert_eq!(
            out,
            format!("abc\n... [994 characters omitted] ...\n{expected_tail}")
        );
    }

    #[test]
    fn a_big_single_push_and_multibyte_characters_are_handled() {
        let mut capture = Capture::with_side_bytes(8);
        let text = "é".repeat(100); // 200 bytes
        capture.push(text.as_bytes());
        let out = capture.finish(4);
        assert_eq!(out, "éé\n... [96 characters omitted] ...\néé");
    }

    #[test]
    fn a_tail_starting_inside_a_character_is_realigned() {
        let mut capture = Capture::with_side_bytes(3);
        capture.push(b"abc");
        capture.push("€".as_bytes()); // three bytes: the tail is full
        capture.push(b"x"); // drops the first byte of the euro sign
        let out = capture.finish(2);
        assert_eq!(out, "a\n... [3 characters omitted] ...\nx");
    }
}
