//! Terminal styling: ANSI colours and weights, off for a non-terminal or `NO_COLOR`.

/// The environment variable that turns colours off (<https://no-color.org>).
pub(crate) const ENV_NO_COLOR: &str = "NO_COLOR";

/// Terminal styling (ANSI), off when output is not a terminal.
#[derive(Debug, Clone, Copy)]
pub struct Style {
    /// Whether to emit ANSI escapes.
    pub ansi: bool,
}

impl Style {
    /// Styling for a stream: on when it is a terminal and `NO_COLOR` is unset or empty.
    #[must_use]
    pub fn detect(is_terminal: bool, no_color: Option<&str>) -> Self {
        Self {
            ansi: is_terminal && no_color.is_none_or(str::is_empty),
        }
    }

    /// Styling for standard output as this process sees it.
    #[must_use]
    pub fn for_stdout() -> Self {
        use std::io::IsTerminal;
        Self::detect(
            std::io::stdout().is_terminal(),
            std::env::var(ENV_NO_COLOR).ok().as_deref(),
        )
    }

    /// Styling for standard error as this process sees it.
    #[must_use]
    pub fn for_stderr() -> Self {
        use std::io::IsTerminal;
        Self::detect(
            std::io::stderr().is_terminal(),
            std::env::var(ENV_NO_COLOR).ok().as_deref(),
        )
    }

    fn paint(self, code: &str, text: &str) -> String {
        if self.ansi {
            format!("\x1b[{code}m{text}\x1b[0m")
        } else {
            text.to_owned()
        }
    }

    /// Faint text (status lines).
    #[must_use]
    pub fn dim(self, text: &str) -> String {
        self.paint("2", text)
    }

    /// Bold text.
    #[must_use]
    pub fn bold(self, text: &str) -> String {
        self.paint("1", text)
    }

    /// Yellow text (code).
    #[must_use]
    pub fn yellow(self, text: &str) -> String {
        self.paint("33", text)
    }

    /// Red text (errors, ✗).
    #[must_use]
    pub fn red(self, text: &str) -> String {
        self.paint("31", text)
    }

    /// Green text (✓).
    #[must_use]
    pub fn green(self, text: &str) -> String {
        self.paint("32", text)
    }

    /// Cyan text (tool names).
    #[must_use]
    pub fn cyan(self, text: &str) -> String {
        self.paint("36", text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colours_only_on_a_terminal_without_no_color() {
        let cases = [
            (true, None, true),
            (true, Some(""), true),
            (true, Some("1"), false),
            (false, None, false),
            (false, Some("1"), false),
        ];
        for (terminal, no_color, ansi) in cases {
            assert_eq!(
                Style::detect(terminal, no_color).ansi,
                ansi,
                "{terminal} {no_color:?}"
            );
        }
        assert_eq!(Style { ansi: true }.red("x"), "\x1b[31mx\x1b[0m");
        assert_eq!(Style { ansi: false }.red("x"), "x");
    }
}
