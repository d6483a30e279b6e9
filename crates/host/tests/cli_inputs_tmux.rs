//! Issue 39 in a real terminal (tmux): what a person typed and an error echoes — a
//! value clap refuses, an id no conversation has — is shown, never obeyed: an OSC
//! sequence in it does not set the terminal's title.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod tmux;

use std::time::{Duration, Instant};

/// Runs `smallebot <args>` in a terminal to its end; what the screen shows and the
/// title the terminal has then. `None` without tmux.
fn ended(home: &std::path::Path, args: &[&str]) -> Option<(String, String)> {
    let term = tmux::Tmux::start("cli inputs", home, &[], args)?;
    let deadline = Instant::now() + Duration::from_secs(30);
    while !term.exited() {
        assert!(
            Instant::now() < deadline,
            "still running: {}",
            term.screen()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
    Some((term.screen(), term.title()))
}

#[test]
fn control_sequences_typed_on_the_command_line_are_not_obeyed_in_errors() {
    let home = tempfile::tempdir().unwrap();
    let hostile = "\x1b]2;owned\x07\x1b[2Jpdf";
    let cases: &[(&[&str], &str)] = &[
        (
            &["conversations", "export", "x", "--format", hostile],
            "invalid value",
        ),
        (
            &["conversations", "show", hostile],
            "no conversation has an id starting with '^[]2;owned^G^[[2Jpdf'",
        ),
    ];
    for (args, shown) in cases {
        let Some((screen, title)) = ended(home.path(), args) else {
            return;
        };
        assert!(screen.contains(shown), "{args:?}: {screen}");
        assert_ne!(title, "owned", "{args:?}: the title was set: {screen}");
    }
}
