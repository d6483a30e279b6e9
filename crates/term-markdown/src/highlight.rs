//! Code highlighted: Rust from its lexer's tokens ([`crate::rust_code`]), every other
//! language with syntect's bundled grammars and theme. The grammars are loaded
//! the first time a code block needs them (a chat that shows no code never pays for
//! them), then shared by every clone of the [`Highlighter`]. The theme, a constant of the
//! program, is read once per process on the first code block, so that its selectors are
//! prepared once and not for every line.

use std::sync::{Arc, OnceLock};

use smallebot_terminal_text::escape_controls;
use syntect::highlighting::{
    FontStyle, HighlightIterator, HighlightState, Highlighter as ThemeHighlighter, Theme, ThemeSet,
};
use syntect::parsing::{ParseState, ScopeStack, SyntaxSet};

use crate::rust_code::{RustLines, is_rust};
use crate::style::{Colour, Line, Look, palette_index, push_text};

/// The bundled theme used (dark background).
const THEME: &str = "base16-ocean.dark";
/// Columns a tab in code stands for.
const TAB: &str = "    ";

/// The bundled theme, read on the first code block of the process (it never changes).
static BUNDLED_THEME: OnceLock<Theme> = OnceLock::new();

fn bundled_theme() -> &'static Theme {
    BUNDLED_THEME.get_or_init(|| {
        ThemeSet::load_defaults()
            .themes
            .remove(THEME)
            .unwrap_or_default()
    })
}

struct Loaded {
    syntaxes: SyntaxSet,
    /// The theme's selectors, prepared once.
    theme: ThemeHighlighter<'static>,
}

/// Highlights code; cheap to clone (clones share the loaded grammars).
#[derive(Clone, Default)]
pub struct Highlighter {
    loaded: Arc<OnceLock<Loaded>>,
}

impl std::fmt::Debug for Highlighter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Highlighter")
            .field("loaded", &self.loaded.get().is_some())
            .finish()
    }
}

impl Highlighter {
    fn loaded(&self) -> &Loaded {
        self.loaded.get_or_init(|| Loaded {
            syntaxes: SyntaxSet::load_defaults_newlines(),
            theme: ThemeHighlighter::new(bundled_theme()),
        })
    }

    /// Whether the grammars have been loaded (a code block was highlighted).
    pub fn is_loaded(&self) -> bool {
        self.loaded.get().is_some()
    }

    /// The state for highlighting one code block in `language` line by line (plain
    /// text for a language not known). Rust needs no grammar.
    pub fn block(&self, language: &str) -> CodeBlock {
        if is_rust(language) {
            return CodeBlock {
                colouring: Colouring::Rust(RustLines::default()),
            };
        }
        let loaded = self.loaded();
        let syntax = loaded
            .syntaxes
            .find_syntax_by_token(language)
            .unwrap_or_else(|| loaded.syntaxes.find_syntax_plain_text());
        CodeBlock {
            colouring: Colouring::Grammar(Box::new(GrammarState {
                shared: Arc::clone(&self.loaded),
                parse: ParseState::new(syntax),
                highlight: HighlightState::new(&loaded.theme, ScopeStack::new()),
            })),
        }
    }
}

/// One code block being highlighted, line after line.
pub struct CodeBlock {
    colouring: Colouring,
}

/// How a block's lines are coloured.
enum Colouring {
    Rust(RustLines),
    Grammar(Box<GrammarState>),
}

/// A block coloured by a syntect grammar: the state carried from line to line.
struct GrammarState {
    shared: Arc<OnceLock<Loaded>>,
    parse: ParseState,
    highlight: HighlightState,
}

impl std::fmt::Debug for CodeBlock {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CodeBlock").finish_non_exhaustive()
    }
}

impl CodeBlock {
    /// The next line of the block (without its line break), highlighted and escaped.
    pub fn line(&mut self, text: &str) -> Line {
        match &mut self.colouring {
            Colouring::Rust(rust) => rust.line(&text.replace('\t', TAB)),
            Colouring::Grammar(grammar) => grammar.line(text),
        }
    }
}

impl GrammarState {
    fn line(&mut self, text: &str) -> Line {
        let source = format!("{}\n", text.replace('\t', TAB));
        let mut line = Vec::new();
        let Some(loaded) = self.shared.get() else {
            return plain_code(&source);
        };
        let Ok(ops) = self.parse.parse_line(&source, &loaded.syntaxes) else {
            return plain_code(&source);
        };
        let theme = &loaded.theme;
        for (style, piece) in HighlightIterator::new(&mut self.highlight, &ops, &source, theme) {
            let piece = piece.trim_end_matches('\n');
            if piece.is_empty() {
                continue;
            }
            let c = style.foreground;
            let look = Look {
                bold: style.font_style.contains(FontStyle::BOLD),
                italic: style.font_style.contains(FontStyle::ITALIC),
                underline: style.font_style.contains(FontStyle::UNDERLINE),
                fg: Some(Colour::Palette(palette_index(c.r, c.g, c.b))),
                ..Look::PLAIN
            };
            push_text(&mut line, &escape_controls(piece), look);
        }
        line
    }
}

/// A code line without highlighting (yellow).
pub fn plain_code(text: &str) -> Line {
    let look = Look {
        fg: Some(Colour::Basic(3)),
        ..Look::PLAIN
    };
    let text = text.trim_end_matches('\n').replace('\t', TAB);
    vec![crate::style::Span::new(escape_controls(&text), look)]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::line_string;

    #[test]
    fn grammars_load_on_the_first_block_and_colour_code() {
        let highlighter = Highlighter::default();
        assert!(!highlighter.is_loaded());
        // Rust needs no grammar.
        let mut rust = highlighter.block("rust");
        assert!(!highlighter.is_loaded());
        let line = rust.line("fn main() {\tlet x = \"s\"; }");
        assert!(line.len() > 3, "{line:?}");
        assert_eq!(line_string(&line, false), "fn main() {    let x = \"s\"; }");
        assert!(line_string(&line, true).contains("\x1b[38;5;"));
        let mut block = highlighter.block("python");
        assert!(highlighter.is_loaded());
        let line = block.line("def main(): return \"s\"");
        assert!(line.len() > 3, "{line:?}");
        assert_eq!(line_string(&line, false), "def main(): return \"s\"");
        assert!(line_string(&line, true).contains("\x1b[38;5;"));
        // Tabs are expanded, control characters escaped; an unknown language is plain.
        let mut other = highlighter.clone().block("no-such-language");
        let line = other.line("\tx\x1b[2J");
        assert_eq!(line_string(&line, false), "    x^[[2J");
    }
}
