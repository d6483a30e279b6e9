//! Whether the terminal answers the cursor-position query (`ESC [ 6 n`). The line
//! editor asks it before every prompt and gives up only after 2 s; a pseudo-terminal
//! that never answers (a bare `script` session, some serial consoles) is found here
//! in a fraction of that, and the chat reads plain lines there instead.

use std::time::{Duration, Instant};

use rustix::termios::{OptionalActions, SpecialCodeIndex, tcgetattr, tcsetattr};

/// How long the terminal has to answer: a round trip, even over a slow connection.
pub const ANSWER_WAIT: Duration = Duration::from_millis(300);

/// Asks the terminal on standard input/output where the cursor is and waits up to
/// `wait` for the answer (`ESC [ row ; col R`), which is read and dropped. `false`
/// when it does not answer in time, or the terminal cannot be put in raw mode.
pub fn terminal_answers(wait: Duration) -> bool {
    let stdin = rustix::stdio::stdin();
    let Ok(saved) = tcgetattr(stdin) else {
        return false;
    };
    let mut raw = saved.clone();
    raw.make_raw();
    // Reads return after a tenth of a second without input, so the deadline is kept.
    raw.special_codes[SpecialCodeIndex::VMIN] = 0;
    raw.special_codes[SpecialCodeIndex::VTIME] = 1;
    if tcsetattr(stdin, OptionalActions::Now, &raw).is_err() {
        return false;
    }
    let answered = ask(wait);
    // Back as it was, whatever happened (the editor sets its own mode).
    let _ = tcsetattr(stdin, OptionalActions::Now, &saved);
    answered
}

/// Writes the query and reads until an answer or `wait` passed.
fn ask(wait: Duration) -> bool {
    use std::io::Write;
    let mut stdout = std::io::stdout();
    if stdout
        .write_all(b"\x1b[6n")
        .and_then(|()| stdout.flush())
        .is_err()
    {
        return false;
    }
    let deadline = Instant::now() + wait;
    let mut seen = Vec::new();
    let mut buffer = [0_u8; 64];
    while Instant::now() < deadline {
        match rustix::io::read(rustix::stdio::stdin(), &mut buffer) {
            Ok(read) => {
                seen.extend_from_slice(&buffer[..read]);
                if is_position_report(&seen) {
                    return true;
                }
            }
            Err(rustix::io::Errno::INTR | rustix::io::Errno::AGAIN) => {}
            Err(_) => return false,
        }
    }
    false
}

/// Whether `bytes` hold a cursor position report, `ESC [ digits ; digits R`.
fn is_position_report(bytes: &[u8]) -> bool {
    bytes.windows(2).enumerate().any(|(start, pair)| {
        pair == b"\x1b["
            && bytes[start + 2..]
                .iter()
                .position(|b| !(b.is_ascii_digit() || *b == b';'))
                .is_some_and(|end| end > 0 && bytes[start + 2 + end] == b'R')
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn position_reports_are_recognized() {
        let cases: &[(&[u8], bool)] = &[
            (b"\x1b[12;40R", true),
            (b"typed\x1b[1;1R", true),
            (b"\x1b[12;40", false),
            (b"\x1b[R", false),
            (b"\x1b[12;40X", false),
            (b"", false),
            (b"R", false),
        ];
        for (bytes, expected) in cases {
            assert_eq!(is_position_report(bytes), *expected, "{bytes:?}");
        }
    }
}
