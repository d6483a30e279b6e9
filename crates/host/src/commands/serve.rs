//! `smallebot serve [--addr 127.0.0.1:8080] [--public-name NAME]… [--shutdown-grace S]`:
//! the web app of `smallebot-web` until SIGTERM, SIGHUP or Ctrl+C; then the running
//! turns get the grace to finish before they are cancelled.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use smallebot_agent::assembly::{Home, WarmUp};
use smallebot_application::pipeline::shutdown::{all_idle, interrupt_and_wait};
use smallebot_mcp::McpUsers;
use smallebot_sandbox::CommandSandbox;
use smallebot_web::{PublicName, WebConfirmer, WebElicitor, WebState, hosts_for, router};

use super::serve_users::{PerUserServices, StoreUsers};

use crate::error::HostError;
use crate::shutdown::{Stop, StopSignals};
use crate::wiring;

/// How `serve` runs.
pub struct ServeOptions {
    /// How long running turns may go on after a stop signal before they are cancelled.
    pub shutdown_grace: Duration,
    /// Where to listen.
    pub addr: SocketAddr,
    /// More names the server is reached by.
    pub public_names: Vec<String>,
    /// Open the page in a browser once listening.
    pub open: bool,
    /// The process's metrics (the log subscriber times spans into them).
    pub metrics: Arc<smallebot_telemetry::Metrics>,
}

/// Serves `home`'s web app on `options.addr`: on loopback for the local `user`;
/// elsewhere for the store's users, who sign in with their tokens.
pub async fn run(home: &Home, options: &ServeOptions, user: Option<&str>) -> Result<(), HostError> {
    let addr = options.addr;
    let public_names = options
        .public_names
        .iter()
        .map(|name| PublicName::parse(name))
        .collect::<Result<Vec<_>, _>>()?;
    // Commands that need confirmation are asked on the conversation's page.
    let confirmer = Arc::new(WebConfirmer::new());
    let observer = Arc::clone(&options.metrics) as _;
    let signed_in = !addr.ip().is_loopback();
    let app = wiring::build_observed(
        home,
        user,
        confirmer.clone(),
        WarmUp::Background,
        observer,
        signed_in,
    )
    .await?;
    let (listener, mut signals) = match listen(&app, addr, signed_in).await {
        Ok(ready) => ready,
        Err(refused) => {
            app.close().await;
            return Err(refused);
        }
    };
    let bound = listener.local_addr().unwrap_or(addr);
    let metrics = Arc::clone(&options.metrics);
    let (state, per_user, banner) = web_state(home, &app, confirmer, &public_names, bound, metrics);
    // The MCP servers' questions during a call are forms on the conversation's page
    // (the per-user servers' views share the servers' elicitor).
    let elicitor = Arc::new(WebElicitor::new());
    app.mcp.set_elicitor(elicitor.clone());
    let state = state.elicitations(elicitor);
    // A reader that went away (`serve | head -1`) does not stop the server.
    let _ = outln!("{banner}");
    // In the log (standard error): standard output carries only the banner, which
    // scripts read.
    if let Some(sandbox) = &app.sandbox {
        tracing::info!("{}", sandbox.summary());
    }
    if options.open {
        open_browser(&format!("http://{}/", page_address(bound)));
    }
    // Another process on the same database may stop mid-turn: its turns are marked
    // interrupted here, not only when this process starts.
    let sweeper = tokio::spawn(Arc::clone(&app.service).sweep_forever());
    let admission = state.clone();
    // Every request with its peer's address (failed sign-ins are limited per client).
    let server = smallebot_web::serve(listener, router(state));
    tokio::pin!(server);
    tokio::select! {
        () = &mut server => {},
        stop = signals.recv() => {
            // The server goes on answering (the pages see the turns end) while the
            // running turns finish or are cancelled; new turns are refused.
            admission.stop_taking_turns();
            let mut services = vec![Arc::clone(&app.service)];
            if let Some(per_user) = &per_user {
                for service in per_user.built.lock().await.values() {
                    // On PostgreSQL the services share one registry of running turns:
                    // each is counted and stopped once.
                    if !services.iter().any(|s| s.shares_turns_with(service)) {
                        services.push(Arc::clone(service));
                    }
                }
            }
            tokio::select! {
                () = &mut server => {},
                () = stop_turns(stop, &services, options.shutdown_grace, &mut signals) => {},
            }
        }
    };
    sweeper.abort();
    let _ = sweeper.await;
    if let Some(per_user) = &per_user {
        per_user.mcp.shutdown().await;
    }
    admission.end_sessions().await;
    app.close().await;
    Ok(())
}

/// Refuses what must not be served (a non-loopback address without users, or without
/// the sandbox), then listens on `addr` and catches the stop signals.
async fn listen(
    app: &wiring::App,
    addr: SocketAddr,
    signed_in: bool,
) -> Result<(tokio::net::TcpListener, StopSignals), HostError> {
    if signed_in && app.store.user_names().await?.is_empty() {
        return Err(HostError::NotLoopback(addr));
    }
    sandbox_for_users(signed_in, app.sandbox.as_deref())?;
    let listener = tokio::net::TcpListener::bind(addr)
        .await
        .map_err(|source| HostError::Listen { addr, source })?;
    // Caught once listening (a start that hangs, such as an unreachable database,
    // still ends at the first Ctrl+C).
    let signals = StopSignals::catch(true)?;
    Ok((listener, signals))
}

/// The web app's state for `app` listening on `bound`: its host names, and on a
/// non-loopback address the users and each one's services; with the services built
/// per user (to stop their turns) and the banner.
fn web_state(
    home: &Home,
    app: &wiring::App,
    confirmer: Arc<WebConfirmer>,
    public_names: &[PublicName],
    bound: SocketAddr,
    metrics: Arc<smallebot_telemetry::Metrics>,
) -> (WebState, Option<Arc<PerUserServices>>, String) {
    // Only its own host names: a DNS name rebound to the server, or another site open
    // in the browser, gets 403.
    let mut hosts = hosts_for(bound);
    for name in public_names {
        hosts.extend(name.hosts(bound.port()));
    }
    let signed_in = !bound.ip().is_loopback();
    let confirmer_for_users = confirmer.clone();
    let env = |key: &str| std::env::var(key).ok();
    let sign_ins = smallebot_mcp::McpSignIns::from_env(app.store.store(), &app.user, &env);
    let mcp = Arc::new(McpUsers::new(Arc::clone(&app.mcp), sign_ins, signed_in));
    let mut per_user = None;
    let banner;
    let metrics_token = std::env::var("SMALLEBOT_METRICS_TOKEN")
        .ok()
        .filter(|t| !t.trim().is_empty());
    let mut state = WebState::new(Arc::clone(&app.service), &app.user)
        .metrics(Arc::clone(&metrics) as _, metrics_token)
        .allow_hosts(hosts)
        .https(public_names.iter().any(|name| name.https))
        .confirmations(confirmer)
        .agents(Arc::new(home.agent_directory(signed_in)))
        .rewind(Arc::new(
            home.conversation_rewind(app.store.store(), signed_in),
        ))
        .mcp(Arc::clone(&mcp) as _)
        .mcp_offers(Arc::clone(&mcp) as _)
        .skills(Arc::new(smallebot_agent::skills::HomeSkills {
            home: home.clone(),
            per_user: signed_in,
        }));
    if signed_in {
        // Each user's tools work in their own folder, <home>/workspace/users/<name>.
        let services = PerUserServices {
            home: home.clone(),
            store: app.store.clone(),
            confirmer: confirmer_for_users,
            tokenizer: Arc::clone(&app.tokenizer),
            mcp,
            peers: app.peers.clone(),
            metrics,
            budget_overrides: Arc::clone(&app.budget_overrides),
            built: tokio::sync::Mutex::default(),
        };
        let services = Arc::new(services);
        per_user = Some(Arc::clone(&services));
        state = state
            .users(Arc::new(StoreUsers(app.store.clone())))
            .per_user_services(services);
        banner = format!(
            "SmallEBot serves its users' conversations at http://{bound}/ (each signs in with \
             their token; API: /api/conversations; Ctrl+C stops)"
        );
    } else {
        banner = format!(
            "SmallEBot serves {}'s conversations at http://{bound}/ (API: /api/conversations; \
             Ctrl+C stops)",
            app.user
        );
    }
    (state, per_user, banner)
}

/// Refuses new turns in `services`, lets the running ones finish for `grace` (or
/// until another stop signal), then cancels them and waits until they are stored.
async fn stop_turns(
    stop: Stop,
    services: &[Arc<smallebot_application::ConversationService>],
    grace: Duration,
    signals: &mut StopSignals,
) {
    for service in services {
        service.close();
    }
    let running: usize = services.iter().map(|s| s.running()).sum();
    if running == 0 {
        tracing::info!("{stop}: stopping");
        return;
    }
    tracing::info!(
        "{stop}: stopping — no new turns; {running} running turn(s) get {} s to finish \
         (--shutdown-grace)",
        grace.as_secs_f64()
    );
    tokio::select! {
        () = all_idle(services) => return,
        () = tokio::time::sleep(grace) => {
            tracing::warn!("the shutdown grace ended: cancelling the running turns");
        }
        again = signals.recv() => {
            tracing::warn!("{again}: cancelling the running turns now");
        }
    }
    if let Err(warning) = interrupt_and_wait(services).await {
        tracing::warn!("{warning}");
    }
}

/// Several users (`signed_in`) need a sandbox that works, or one set `off` by the
/// admin: one user's commands must not reach another's files or the database.
fn sandbox_for_users(signed_in: bool, sandbox: Option<&CommandSandbox>) -> Result<(), HostError> {
    match sandbox {
        Some(sandbox) if signed_in && sandbox.needs_consent() => {
            Err(HostError::SandboxUnavailable(sandbox.summary()))
        }
        _ => Ok(()),
    }
}

/// Where a browser on this machine reaches a server bound to `bound`.
fn page_address(bound: SocketAddr) -> SocketAddr {
    if bound.ip().is_unspecified() {
        SocketAddr::from(([127, 0, 0, 1], bound.port()))
    } else {
        bound
    }
}

/// Opens `url` with `$BROWSER` (if set) or `xdg-open`; says so when neither works.
fn open_browser(url: &str) {
    let opener = std::env::var("BROWSER")
        .ok()
        .filter(|b| !b.trim().is_empty())
        .unwrap_or_else(|| "xdg-open".to_owned());
    let spawned = std::process::Command::new(&opener)
        .arg(url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn();
    match spawned {
        // Reaped in the background: the server runs on.
        Ok(mut child) => drop(std::thread::spawn(move || child.wait())),
        Err(err) => {
            tracing::warn!("could not open a browser with '{opener}' ({err}); open {url} yourself");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallebot_sandbox::{LandlockSupport, SandboxMode, SandboxSettings};

    fn sandbox(mode: SandboxMode, support: LandlockSupport) -> CommandSandbox {
        let settings = SandboxSettings {
            mode,
            ..SandboxSettings::default()
        };
        CommandSandbox::with_support(
            settings,
            std::path::PathBuf::from("/bin/true"),
            std::path::Path::new("/nonexistent-home"),
            support,
        )
        .unwrap()
    }

    #[test]
    fn several_users_need_a_working_sandbox_or_an_explicit_off() {
        let missing = || LandlockSupport::Unavailable("simulated".to_owned());
        let works = || LandlockSupport::Available { tcp: true };
        let refused =
            sandbox_for_users(true, Some(&sandbox(SandboxMode::WorkspaceWrite, missing())))
                .unwrap_err()
                .to_string();
        assert!(
            refused.contains("refusing to serve several users"),
            "{refused}"
        );
        assert!(refused.contains("\"sandbox\": \"off\""), "{refused}");
        for (signed_in, mode, support) in [
            (true, SandboxMode::WorkspaceWrite, works()),
            (true, SandboxMode::Off, missing()),
            (false, SandboxMode::WorkspaceWrite, missing()),
        ] {
            assert!(
                sandbox_for_users(signed_in, Some(&sandbox(mode, support))).is_ok(),
                "{signed_in} {mode}"
            );
        }
    }
}
