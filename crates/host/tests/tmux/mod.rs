//! Driving `smallebot chat` in a real terminal: a tmux server of the test's own (its
//! own socket), one pane running the command, keys sent and the screen read back.
//!
//! Without tmux the tests print one loud line and pass, unless
//! `SMALLEBOT_REQUIRE_TMUX` is set (CI sets it, after installing tmux), where they fail.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

/// A testkit model answering every turn with `answer` and every title request with
/// `A title`.
pub async fn answering(answer: &'static str) -> smallebot_testkit::TestModel {
    let model = smallebot_testkit::TestModel::start().await.unwrap();
    model.respond_with(move |req| {
        if req.asks_for_title() {
            smallebot_testkit::ScriptedResponse::text("A title")
        } else {
            smallebot_testkit::ScriptedResponse::text(answer)
        }
    });
    model
}

/// `smallebot --home <home> chat` on `model` (as the scripted model), run in the
/// directory `cwd`; `None` when tmux is missing and not required.
pub fn chat_in(
    test: &str,
    home: &Path,
    cwd: &Path,
    model: &smallebot_testkit::TestModel,
) -> Option<Tmux> {
    let url = model.base_url();
    let env = [
        ("OPENAI_BASE_URL", url.as_str()),
        ("SMALLEBOT_MODEL", "scripted"),
    ];
    let home_arg = home.to_string_lossy().into_owned();
    let args = ["--home", home_arg.as_str(), "chat"];
    Tmux::start_in(test, Some(cwd), &env, &args)
}

/// A terminal running one command.
pub struct Tmux {
    socket: PathBuf,
    _dir: tempfile::TempDir,
}

/// Quotes `word` for `sh`.
fn quote(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

impl Tmux {
    /// Runs `smallebot --home <home> <args>` with `env` in a 160×50 terminal; `None`
    /// (after saying so) when tmux is missing and not required.
    pub fn start(test: &str, home: &Path, env: &[(&str, &str)], args: &[&str]) -> Option<Self> {
        Self::start_sized(test, home, env, args, (160, 50))
    }

    /// [`Tmux::start`] in a terminal of `(columns, rows)`.
    pub fn start_sized(
        test: &str,
        home: &Path,
        env: &[(&str, &str)],
        args: &[&str],
        size: (u16, u16),
    ) -> Option<Self> {
        let home = home.to_string_lossy();
        let mut all = vec!["--home", home.as_ref()];
        all.extend_from_slice(args);
        Self::launch(test, None, env, &all, size)
    }

    /// Runs `smallebot <args>` (no `--home`: the home is found) in the directory `cwd`
    /// with `env`; `None` when tmux is missing and not required.
    pub fn start_in(
        test: &str,
        cwd: Option<&Path>,
        env: &[(&str, &str)],
        args: &[&str],
    ) -> Option<Self> {
        Self::launch(test, cwd, env, args, (160, 50))
    }

    /// Starts `smallebot <args>` in `cwd` in a terminal of `(columns, rows)`.
    fn launch(
        test: &str,
        cwd: Option<&Path>,
        env: &[(&str, &str)],
        args: &[&str],
        (columns, rows): (u16, u16),
    ) -> Option<Self> {
        if Command::new("tmux").arg("-V").output().is_err() {
            assert!(
                std::env::var_os("SMALLEBOT_REQUIRE_TMUX").is_none(),
                "tmux is required (SMALLEBOT_REQUIRE_TMUX is set) but not installed"
            );
            eprintln!(
                "!!! SKIPPED terminal test `{test}`: tmux is not installed (apt-get install tmux)"
            );
            return None;
        }
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("tmux.sock");
        let mut line = String::new();
        if let Some(cwd) = cwd {
            line.push_str(&format!("cd {} && ", quote(&cwd.to_string_lossy())));
        }
        line.push_str(
            "env -u SMALLEBOT_HOME -u OPENAI_API_KEY -u OPENAI_BASE_URL -u SMALLEBOT_MODEL -u NO_COLOR USER=tester",
        );
        for (key, value) in env {
            line.push_str(&format!(" {}", quote(&format!("{key}={value}"))));
        }
        line.push_str(&format!(" {}", quote(env!("CARGO_BIN_EXE_smallebot"))));
        for arg in args {
            line.push_str(&format!(" {}", quote(arg)));
        }
        let tmux = Self { socket, _dir: dir };
        // remain-on-exit is set before the program starts: one that exits at once
        // (an error) would otherwise take the session with it before it could be set.
        tmux.run(&[
            "start-server",
            ";",
            "set-option",
            "-g",
            "remain-on-exit",
            "on",
            ";",
            "new-session",
            "-d",
            "-s",
            "t",
            "-x",
            &columns.to_string(),
            "-y",
            &rows.to_string(),
            &line,
        ]);
        Some(tmux)
    }

    fn run(&self, args: &[&str]) -> String {
        let out = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .args(args)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "tmux {args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    /// Types `text` literally.
    pub fn type_text(&self, text: &str) {
        self.run(&["send-keys", "-t", "t", "-l", text]);
    }

    /// Presses keys by tmux name (`Enter`, `Left`, `C-c`, `M-Enter`, …).
    pub fn keys(&self, keys: &[&str]) {
        let mut args = vec!["send-keys", "-t", "t"];
        args.extend_from_slice(keys);
        self.run(&args);
    }

    /// Pastes `text` the way a terminal does (bracketed when the program asked).
    pub fn paste(&self, text: &str) {
        let file = self._dir.path().join("paste.txt");
        std::fs::write(&file, text).unwrap();
        self.run(&["load-buffer", "-b", "p", &file.to_string_lossy()]);
        self.run(&["paste-buffer", "-p", "-b", "p", "-t", "t"]);
    }

    /// The whole screen and scrollback, wrapped lines joined.
    pub fn screen(&self) -> String {
        self.run(&["capture-pane", "-p", "-J", "-S", "-", "-t", "t"])
    }

    /// The screen and scrollback row by row as the terminal shows them (wrapped lines
    /// not joined), with the colour escapes of each cell when `escapes`.
    pub fn rows(&self, escapes: bool) -> String {
        let mut args = vec!["capture-pane", "-p", "-S", "-", "-t", "t"];
        if escapes {
            args.push("-e");
        }
        self.run(&args)
    }

    /// What the screen shows now (no scrollback), wrapped lines joined.
    pub fn visible(&self) -> String {
        self.run(&["capture-pane", "-p", "-J", "-t", "t"])
    }

    /// The whole screen and scrollback with its colours and attributes as escapes.
    pub fn screen_with_escapes(&self) -> String {
        self.run(&["capture-pane", "-p", "-e", "-J", "-S", "-", "-t", "t"])
    }

    /// Waits until the prompt is drawn again after the last `marker` on the screen (the
    /// line editor reads again: what is typed or pasted from now on reaches it, not a
    /// terminal in line mode with its line-length limit).
    pub fn wait_for_prompt_after(&self, marker: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            if let Some(at) = screen.rfind(marker)
                && screen[at..].contains("\n› ")
            {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for the prompt after {marker:?}; the screen shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Waits until the screen shows `needle` (20 s at most); returns the screen.
    pub fn wait_for(&self, needle: &str) -> String {
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let screen = self.screen();
            if screen.contains(needle) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "timed out waiting for {needle:?}; the screen shows:\n{screen}"
            );
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// Resizes the terminal to `(columns, rows)` (the program gets SIGWINCH).
    pub fn resize(&self, (columns, rows): (u16, u16)) {
        self.run(&[
            "resize-window",
            "-t",
            "t",
            "-x",
            &columns.to_string(),
            "-y",
            &rows.to_string(),
        ]);
    }

    /// Lets programs set the clipboard (OSC 52), which tmux keeps as a paste buffer.
    pub fn allow_clipboard(&self) {
        self.run(&["set-option", "-s", "set-clipboard", "on"]);
    }

    /// The newest paste buffer (what a program put on the clipboard last).
    pub fn clipboard(&self) -> String {
        self.run(&["show-buffer"])
    }

    /// Whether the program in the pane has exited.
    pub fn exited(&self) -> bool {
        self.run(&["display-message", "-p", "-t", "t", "#{pane_dead}"])
            .trim()
            == "1"
    }

    /// The pane's title (what an OSC 0 or 2 sequence printed in it sets).
    pub fn title(&self) -> String {
        self.run(&["display-message", "-p", "-t", "t", "#{pane_title}"])
            .trim()
            .to_owned()
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = Command::new("tmux")
            .arg("-S")
            .arg(&self.socket)
            .arg("kill-server")
            .output();
    }
}
