//! `cargo xtask demo [--chat | --serve [--addr A]] [--home DIR]`: the host against the
//! scripted demo model (`smallebot-demo-model`, from the testkit), offline.

use std::io::{BufRead, BufReader};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitCode, Stdio};

use crate::{Profile, build, exit_code};

const HELP: &str = "\
Run the host against a scripted model, offline (one turn, --chat or --serve)

Usage: cargo xtask demo [--chat | --serve [--addr ADDR]] [--home DIR]

Options:
  --chat         Chat interactively with the demo model instead of running one turn
  --serve        Serve the web app on 127.0.0.1:8080 (or --addr) with the demo model, until Ctrl+C
  --addr ADDR    Where --serve listens [default: 127.0.0.1:8080]
  --home DIR     Keep the demo's home directory there (default: a temporary one)";

/// What the demo runs.
#[derive(Debug, PartialEq, Eq)]
enum Mode {
    OneTurn,
    Chat,
    Serve(String),
}

/// The demo's arguments.
#[derive(Debug, PartialEq, Eq)]
struct DemoArgs {
    mode: Mode,
    home: Option<PathBuf>,
}

/// Reads the arguments; `Ok(None)` for `--help`.
fn parse(args: &[String]) -> Result<Option<DemoArgs>, String> {
    let (mut chat, mut serve, mut addr, mut home) = (false, false, None, None);
    let mut it = args.iter();
    while let Some(arg) = it.next() {
        match arg.as_str() {
            "--chat" => chat = true,
            "--serve" => serve = true,
            "--addr" => addr = Some(it.next().ok_or("--addr needs an address")?.clone()),
            "--home" => home = Some(PathBuf::from(it.next().ok_or("--home needs a directory")?)),
            "-h" | "--help" => return Ok(None),
            other => return Err(format!("unexpected argument `{other}`\n\n{HELP}")),
        }
    }
    let mode = match (chat, serve, addr) {
        (true, true, _) => return Err("--chat and --serve cannot be used together".into()),
        (_, false, Some(_)) => return Err("--addr goes with --serve".into()),
        (true, false, None) => Mode::Chat,
        (false, true, addr) => Mode::Serve(addr.unwrap_or_else(|| "127.0.0.1:8080".into())),
        (false, false, None) => Mode::OneTurn,
    };
    Ok(Some(DemoArgs { mode, home }))
}

/// The demo model, running until dropped (its input closes, then it is waited for).
struct DemoModel {
    child: Child,
    input: Option<ChildStdin>,
    base_url: String,
}

impl DemoModel {
    fn start(binary: PathBuf) -> Result<Self, String> {
        let mut child = Command::new(&binary)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .map_err(|e| format!("cannot start {}: {e}", binary.display()))?;
        let input = child.stdin.take();
        let mut line = String::new();
        if let Some(out) = child.stdout.take() {
            BufReader::new(out)
                .read_line(&mut line)
                .map_err(|e| format!("the demo model said nothing: {e}"))?;
        }
        let base_url = line.trim().to_owned();
        if base_url.is_empty() {
            let _ = child.kill();
            return Err("the demo model did not start (it printed no address)".into());
        }
        Ok(Self {
            child,
            input,
            base_url,
        })
    }
}

impl Drop for DemoModel {
    fn drop(&mut self) {
        drop(self.input.take());
        let _ = self.child.wait();
    }
}

/// A temporary home, removed when dropped.
struct TempHome(PathBuf);

impl TempHome {
    fn create() -> Result<Self, String> {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.subsec_nanos());
        let dir =
            std::env::temp_dir().join(format!("smallebot-demo-{}-{nanos}", std::process::id()));
        std::fs::create_dir(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
        Ok(Self(dir))
    }
}

impl Drop for TempHome {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Builds `smallebot` and the demo model together, then runs the demo.
pub fn run(args: &[String]) -> Result<ExitCode, String> {
    let args = match parse(args) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{HELP}");
            return Ok(ExitCode::SUCCESS);
        }
        Err(usage) => {
            eprintln!("error: {usage}");
            return Ok(ExitCode::from(2));
        }
    };
    let bin = build(
        Profile::Dev,
        &["-p", "smallebot", "-p", "smallebot-testkit", "--bins"],
    )?;
    let model = DemoModel::start(bin.join("smallebot-demo-model"))?;
    let temp;
    let home = match args.home {
        Some(home) => home,
        None => {
            temp = TempHome::create()?;
            temp.0.clone()
        }
    };
    println!(
        "demo model (scripted, offline) at {} — home {}\n",
        model.base_url,
        home.display()
    );
    let mut command = Command::new(bin.join("smallebot"));
    command
        .arg("--home")
        .arg(&home)
        .env("OPENAI_BASE_URL", &model.base_url)
        .env("OPENAI_API_KEY", "demo")
        .env("SMALLEBOT_MODEL", "demo-model")
        .env_remove("SMALLEBOT_HOME");
    match &args.mode {
        Mode::Chat => command.args(["chat", "--new"]),
        Mode::Serve(addr) => command.args(["serve", "--addr", addr]),
        Mode::OneTurn => command.args(["run", "What time is it?"]),
    };
    let status = command
        .status()
        .map_err(|e| format!("cannot run smallebot: {e}"))?;
    if status.success() && args.mode == Mode::OneTurn {
        println!(
            "\nThat was one full turn: the model called GetCurrentTime, got the result and answered.\n\
             Chat with the demo model: cargo xtask demo --chat\n\
             Use a real endpoint:      OPENAI_API_KEY=… cargo run -p smallebot -- chat"
        );
    }
    Ok(exit_code(status))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_demos_arguments_are_read_or_refused() {
        let args = |a: &[&str]| parse(&a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
        let ok = |mode, home: Option<&str>| {
            Ok(Some(DemoArgs {
                mode,
                home: home.map(PathBuf::from),
            }))
        };
        assert_eq!(args(&[]), ok(Mode::OneTurn, None));
        assert_eq!(args(&["--chat"]), ok(Mode::Chat, None));
        assert_eq!(
            args(&["--serve", "--home", "/h"]),
            ok(Mode::Serve("127.0.0.1:8080".into()), Some("/h"))
        );
        assert_eq!(
            args(&["--serve", "--addr", "127.0.0.1:9"]),
            ok(Mode::Serve("127.0.0.1:9".into()), None)
        );
        assert_eq!(args(&["--help"]), Ok(None));
        for refused in [
            &["--chat", "--serve"][..],
            &["--addr", "x"],
            &["--home"],
            &["--bogus"],
        ] {
            assert!(args(refused).is_err(), "{refused:?}");
        }
    }
}
