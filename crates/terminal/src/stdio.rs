//! Writing to standard output and standard error without panicking.
//!
//! `println!` and `eprintln!` panic when their stream is a pipe whose reader has gone
//! (`smallebot conversations list | head -1`). Commands write their output with
//! `outln!`, which returns the error (the command stops, and `main` exits quietly on a
//! closed pipe), and notes with `errln!`, which drops what cannot be written: there is
//! nowhere left to report a failure to write to standard error.

/// Writes a line to standard output; evaluates to `std::io::Result<()>`.
#[macro_export]
macro_rules! outln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        writeln!(std::io::stdout().lock(), $($arg)*)
    }};
}

/// Writes to standard output without a line break; evaluates to `std::io::Result<()>`.
#[macro_export]
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let mut stdout = std::io::stdout().lock();
        write!(stdout, $($arg)*).and_then(|()| stdout.flush())
    }};
}

/// Writes a line to standard error; a stream that cannot be written is ignored.
#[macro_export]
macro_rules! errln {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        // Nowhere to report it: standard error itself is what failed.
        let _ = writeln!(std::io::stderr().lock(), $($arg)*);
    }};
}

/// Whether `error` says the reader of a pipe went away (`| head`, `| true`): the
/// output is no longer wanted, which is not a failure of the command.
pub fn is_closed_pipe(error: &std::io::Error) -> bool {
    error.kind() == std::io::ErrorKind::BrokenPipe
}

/// A writer for status lines that never fails: what cannot be written to standard
/// error is dropped, so a closed standard error never stops the answer or the turn.
pub struct Lossy<W>(pub W);

impl<W: std::io::Write> std::io::Write for Lossy<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        // Dropped on failure; see the type's documentation.
        let _ = self.0.write_all(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        let _ = self.0.flush();
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use super::*;

    struct Broken;

    impl Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Err(std::io::ErrorKind::BrokenPipe.into())
        }
    }

    #[test]
    fn a_lossy_writer_swallows_the_failures_of_its_stream() {
        let mut lossy = Lossy(Broken);
        assert_eq!(lossy.write(b"abc").ok(), Some(3));
        assert!(lossy.flush().is_ok());
    }

    #[test]
    fn only_a_broken_pipe_is_a_closed_pipe() {
        assert!(is_closed_pipe(&std::io::ErrorKind::BrokenPipe.into()));
        assert!(!is_closed_pipe(
            &std::io::ErrorKind::PermissionDenied.into()
        ));
    }
}
