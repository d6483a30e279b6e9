//! `cargo xtask demo [--chat | --serve]`: the host against the scripted testkit model,
//! offline.

use std::process::Command;
use std::time::Duration;

use clap::Args;
use smallebot_testkit::{TestModel, scenarios::demo_responder};

/// Arguments of `cargo xtask demo`.
#[derive(Debug, Args)]
pub struct DemoArgs {
    /// Chat interactively with the demo model instead of running one turn.
    #[arg(long, conflicts_with = "serve")]
    chat: bool,
    /// Serve the HTTP API on 127.0.0.1:8080 (or --addr) with the demo model, until
    /// Ctrl+C.
    #[arg(long)]
    serve: bool,
    /// Where `--serve` listens.
    #[arg(long, default_value = "127.0.0.1:8080", requires = "serve")]
    addr: std::net::SocketAddr,
    /// Keep the demo's home directory (default: a temporary one).
    #[arg(long)]
    home: Option<std::path::PathBuf>,
}

/// Starts the testkit with the demo scenario and runs `smallebot` against it.
pub async fn run(args: DemoArgs) -> Result<(), String> {
    let server = TestModel::start()
        .await
        .map_err(|e| format!("cannot start the demo model: {e}"))?;
    server.respond_with(demo_responder(Duration::from_millis(15)));
    let temp = tempfile::tempdir().map_err(|e| format!("cannot create a temp dir: {e}"))?;
    let home = args.home.unwrap_or_else(|| temp.path().to_path_buf());
    println!(
        "demo model (scripted, offline) at {} — home {}\n",
        server.base_url(),
        home.display()
    );
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let mut command = Command::new(cargo);
    command
        .args(["run", "--quiet", "--package", "smallebot", "--"])
        .arg("--home")
        .arg(&home)
        .env("OPENAI_BASE_URL", server.base_url())
        .env("OPENAI_API_KEY", "demo")
        .env("SMALLEBOT_MODEL", "demo-model")
        .env_remove("SMALLEBOT_HOME");
    if args.chat {
        command.args(["chat", "--new"]);
    } else if args.serve {
        command.args(["serve", "--addr", &args.addr.to_string()]);
    } else {
        command.args(["run", "What time is it?"]);
    }
    let status = tokio::task::spawn_blocking(move || command.status())
        .await
        .map_err(|e| format!("the demo task failed: {e}"))?
        .map_err(|e| format!("cannot run smallebot: {e}"))?;
    if !status.success() {
        return Err(format!("smallebot exited with {status}"));
    }
    if !args.chat && !args.serve {
        println!(
            "\nThat was one full turn: the model called GetCurrentTime, got the result and answered.\n\
             Chat with the demo model: cargo xtask demo --chat\n\
             Use a real endpoint:      OPENAI_API_KEY=… cargo run -p smallebot -- chat"
        );
    }
    server.shutdown().await;
    Ok(())
}
