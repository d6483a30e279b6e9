//! The conversation picker of `chat --resume` and `/resume`: recent conversations
//! (title, date, turns) under a filter line; typing filters by title (or id), Up and
//! Down move, Enter opens, Esc or Ctrl+C cancels. It draws below the cursor and erases
//! itself when done, so nothing of it stays on the screen.

use std::io::Write;

use crossterm::event::{self, Event, KeyCode, KeyEvent, KeyEventKind, KeyModifiers};
use crossterm::terminal;
use smallebot_core::rules::terminal_text::escape_controls;

/// Rows of the list shown at once.
const SHOWN: usize = 10;

/// One conversation offered.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Its title.
    pub title: String,
    /// When it was last active, as shown.
    pub when: String,
    /// How many turns it has.
    pub turns: usize,
}

/// The positions of the choices whose title contains every word of `filter` (case
/// ignored), in their order.
pub fn matching(choices: &[Choice], filter: &str) -> Vec<usize> {
    let words: Vec<String> = filter.split_whitespace().map(str::to_lowercase).collect();
    choices
        .iter()
        .enumerate()
        .filter(|(_, c)| {
            let title = c.title.to_lowercase();
            words.iter().all(|w| title.contains(w.as_str()))
        })
        .map(|(i, _)| i)
        .collect()
}

/// The picker's lines: the filter line, then up to [`SHOWN`] matches around
/// `selected` (an index into `matches`), the selected one marked `›`, each cut to
/// `width` columns.
pub fn lines(
    choices: &[Choice],
    matches: &[usize],
    selected: usize,
    filter: &str,
    width: usize,
) -> Vec<String> {
    let mut out = vec![format!(
        "resume: {}▏  ({} of {} · type to filter, ↑↓ move, Enter opens, Esc cancels)",
        escape_controls(filter),
        matches.len(),
        choices.len()
    )];
    let first = selected.saturating_sub(SHOWN - 1);
    for (row, &at) in matches.iter().enumerate().skip(first).take(SHOWN) {
        let c = &choices[at];
        let mark = if row == selected { "›" } else { " " };
        let turns = if c.turns == 1 { "turn" } else { "turns" };
        out.push(format!(
            "{mark} {}  {:>3} {turns}  {}",
            c.when,
            c.turns,
            escape_controls(&c.title)
        ));
    }
    if matches.is_empty() {
        out.push("  (no title matches)".to_owned());
    }
    let width = width.max(10) - 1;
    out.into_iter()
        .map(|line| line.chars().take(width).collect())
        .collect()
}

/// Shows the picker on the terminal and returns the chosen position in `choices`;
/// `None` when cancelled.
///
/// # Errors
/// The terminal could not be read or written.
pub fn pick(choices: &[Choice]) -> std::io::Result<Option<usize>> {
    terminal::enable_raw_mode()?;
    let chosen = run(choices);
    let restored = terminal::disable_raw_mode();
    let chosen = chosen?;
    restored?;
    Ok(chosen)
}

fn run(choices: &[Choice]) -> std::io::Result<Option<usize>> {
    let mut out = std::io::stdout();
    let mut filter = String::new();
    let mut selected = 0;
    let chosen = loop {
        let matches = matching(choices, &filter);
        selected = selected.min(matches.len().saturating_sub(1));
        let width = terminal::size().map_or(80, |(columns, _)| usize::from(columns));
        let shown = lines(choices, &matches, selected, &filter, width);
        // Drawn from the start of the line down, then back to its first line.
        write!(out, "\r\x1b[J{}", shown.join("\r\n"))?;
        if shown.len() > 1 {
            write!(out, "\x1b[{}A", shown.len() - 1)?;
        }
        write!(out, "\r")?;
        out.flush()?;
        let Event::Key(KeyEvent {
            code,
            modifiers,
            kind,
            ..
        }) = event::read()?
        else {
            continue;
        };
        if kind == KeyEventKind::Release {
            continue;
        }
        match code {
            KeyCode::Esc => break None,
            KeyCode::Char('c' | 'd') if modifiers.contains(KeyModifiers::CONTROL) => break None,
            KeyCode::Enter => match matches.get(selected) {
                Some(&at) => break Some(at),
                None => continue,
            },
            KeyCode::Up => selected = selected.saturating_sub(1),
            KeyCode::Down => selected = (selected + 1).min(matches.len().saturating_sub(1)),
            KeyCode::Backspace => {
                filter.pop();
                selected = 0;
            }
            KeyCode::Char(c) if !modifiers.contains(KeyModifiers::CONTROL) => {
                filter.push(c);
                selected = 0;
            }
            _ => {}
        }
    };
    // Erased: the chosen conversation is announced by the chat.
    write!(out, "\r\x1b[J")?;
    out.flush()?;
    Ok(chosen)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn choice(title: &str, turns: usize) -> Choice {
        Choice {
            title: title.into(),
            when: "2026-11-25 10:00".into(),
            turns,
        }
    }

    #[test]
    fn typing_filters_by_every_word_of_the_title() {
        let choices = [
            choice("Walrus facts", 7),
            choice("Penguin plans", 1),
            choice("Facts about otters", 2),
        ];
        let cases: &[(&str, &[usize])] = &[
            ("", &[0, 1, 2]),
            ("walr", &[0]),
            ("FACTS", &[0, 2]),
            ("facts ott", &[2]),
            ("zebra", &[]),
        ];
        for (filter, expected) in cases {
            assert_eq!(matching(&choices, filter), *expected, "{filter:?}");
        }
        let drawn = lines(&choices, &[0, 2], 1, "facts", 200);
        assert_eq!(
            drawn[1..],
            [
                "  2026-11-25 10:00    7 turns  Walrus facts",
                "› 2026-11-25 10:00    2 turns  Facts about otters",
            ]
        );
        assert!(drawn[0].starts_with("resume: facts▏  (2 of 3"), "{drawn:?}");
        let narrow = lines(&choices, &[1], 0, "", 20);
        assert_eq!(narrow[1], "› 2026-11-25 10:00 ");
        assert_eq!(lines(&choices, &[], 0, "x", 80)[1], "  (no title matches)");
    }
}
