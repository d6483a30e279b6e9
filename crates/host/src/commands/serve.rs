//! `smallebot serve [--addr 127.0.0.1:8080] [--public-name NAME]…`: the web app of
//! `smallebot-web` until Ctrl+C.

use std::net::SocketAddr;
use std::sync::Arc;

use smallebot_agent::assembly::Home;
use smallebot_web::{WebConfirmer, WebState, hosts_for, router};

use super::serve_users::{PerUserServices, StoreUsers};

use crate::error::HostError;
use crate::wiring;

/// Serves `home`'s web app on `addr`: on loopback for the local `user`; elsewhere for
/// the store's users, who sign in with their tokens.
pub async fn run(
    home: &Home,
    addr: SocketAddr,
    public_names: &[String],
    user: Option<&str>,
) -> Result<(), HostError> {
    // Commands that need confirmation are asked on the conversation's page.
    let confirmer = Arc::new(WebConfirmer::new());
    let app = wiring::build_with_confirmer(home, user, confirmer.clone()).await?;
    let signed_in = !addr.ip().is_loopback();
    if signed_in && app.store.user_names().await?.is_empty() {
        app.store.close().await;
        return Err(HostError::NotLoopback(addr));
    }
    let listener = match tokio::net::TcpListener::bind(addr).await {
        Ok(listener) => listener,
        Err(source) => {
            app.store.close().await;
            return Err(HostError::Listen { addr, source });
        }
    };
    let bound = listener.local_addr().unwrap_or(addr);
    // Only its own host names: a DNS name rebound to the server, or another site open
    // in the browser, gets 403.
    let mut hosts = hosts_for(bound);
    hosts.extend(public_names.iter().map(|name| {
        if name.contains(':') {
            name.clone()
        } else {
            format!("{name}:{}", bound.port())
        }
    }));
    let confirmer_for_users = confirmer.clone();
    let mut state = WebState::new(Arc::clone(&app.service), &app.user)
        .allow_hosts(hosts)
        .confirmations(confirmer);
    if signed_in {
        // Each user's tools work in their own folder, <home>/workspace/users/<name>.
        let services = PerUserServices {
            home: home.clone(),
            store: app.store.clone(),
            confirmer: confirmer_for_users,
            tokenizer: Arc::clone(&app.tokenizer),
            built: tokio::sync::Mutex::default(),
        };
        state = state
            .users(Arc::new(StoreUsers(app.store.clone())))
            .per_user_services(Arc::new(services));
        println!(
            "SmallEBot serves its users' conversations at http://{bound}/ (each signs in with \
             their token; API: /api/conversations; Ctrl+C stops)"
        );
    } else {
        println!(
            "SmallEBot serves {}'s conversations at http://{bound}/ (API: /api/conversations; \
             Ctrl+C stops)",
            app.user
        );
    }
    let served = tokio::select! {
        served = axum::serve(listener, router(state)) => served,
        _ = tokio::signal::ctrl_c() => Ok(()),
    };
    // Turns still running stop here; the next start marks them interrupted.
    app.store.close().await;
    served.map_err(|source| HostError::Listen { addr, source })
}
