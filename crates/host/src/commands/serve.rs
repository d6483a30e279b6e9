//! `smallebot serve [--addr 127.0.0.1:8080]`: the HTTP API and live event streams of
//! `smallebot-web`, until Ctrl+C.

use std::net::SocketAddr;
use std::sync::Arc;

use smallebot_agent::assembly::Home;
use smallebot_web::{WebConfirmer, WebState, hosts_for, router};

use crate::error::HostError;
use crate::wiring;

/// Serves `home`'s conversations of `user` on `addr` (loopback only).
pub async fn run(home: &Home, addr: SocketAddr, user: Option<&str>) -> Result<(), HostError> {
    if !addr.ip().is_loopback() {
        return Err(HostError::NotLoopback(addr));
    }
    // Commands that need confirmation are asked on the conversation's page.
    let confirmer = Arc::new(WebConfirmer::new());
    let app = wiring::build_with_confirmer(home, user, confirmer.clone()).await?;
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(source) => {
            app.store.close().await;
            return Err(HostError::Listen { addr, source });
        }
    };
    let bound = listener.local_addr().unwrap_or(addr);
    println!(
        "SmallEBot serves {}'s conversations at http://{bound}/ (API: /api/conversations; Ctrl+C stops)",
        app.user
    );
    // Only its own host names: a DNS name rebound to 127.0.0.1, or another site open
    // in the browser, gets 403.
    let state = WebState::new(Arc::clone(&app.service), &app.user)
        .allow_hosts(hosts_for(bound))
        .confirmations(confirmer);
    let routes = router(state);
    let served = tokio::select! {
        served = axum::serve(listener, routes) => served,
        _ = tokio::signal::ctrl_c() => Ok(()),
    };
    // Turns still running stop here; the next start marks them interrupted.
    app.store.close().await;
    served.map_err(|source| HostError::Listen { addr, source })
}
