//! `smallebot-demo-model`: the offline demo's model — the testkit server with the demo
//! scenario ([`smallebot_testkit::scenarios`]), paced like a real model. Prints its base
//! URL as its first line and serves until stdin closes or it is killed. `cargo xtask demo`
//! starts it beside `smallebot`.

use std::io::Read;
use std::process::ExitCode;
use std::time::Duration;

use smallebot_testkit::TestModel;
use smallebot_testkit::scenarios::demo_responder;

/// Between streamed chunks, so the demo looks like a model at work.
const PACE: Duration = Duration::from_millis(15);

fn main() -> ExitCode {
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
    {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("error: cannot start the async runtime: {error}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async {
        let server = match TestModel::start().await {
            Ok(server) => server,
            Err(error) => {
                eprintln!("error: cannot start the demo model: {error}");
                return ExitCode::FAILURE;
            }
        };
        server.respond_with(demo_responder(PACE));
        println!("{}", server.base_url());
        // Serve until whoever started us closes our input (or kills us).
        let closed = tokio::task::spawn_blocking(|| {
            let mut sink = Vec::new();
            let _ = std::io::stdin().read_to_end(&mut sink);
        });
        let _ = closed.await;
        server.shutdown().await;
        ExitCode::SUCCESS
    })
}
