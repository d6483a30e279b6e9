//! `smallebot serve [--addr 127.0.0.1:8080] [--public-name NAME]…`: the web app of
//! `smallebot-web` until Ctrl+C.

use std::net::SocketAddr;
use std::sync::Arc;

use async_trait::async_trait;
use smallebot_agent::assembly::Home;
use smallebot_core::RepositoryError;
use smallebot_infrastructure::SqliteStore;
use smallebot_web::auth::TokenUsers;
use smallebot_web::{WebConfirmer, WebState, hosts_for, router};

use crate::error::HostError;
use crate::wiring;

/// The store's users, for signing in.
struct StoreUsers(SqliteStore);

#[async_trait]
impl TokenUsers for StoreUsers {
    async fn user_for_digest(&self, digest: &str) -> Result<Option<String>, RepositoryError> {
        self.0.user_by_token_sha256(digest).await
    }
}

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
    let mut state = WebState::new(Arc::clone(&app.service), &app.user)
        .allow_hosts(hosts)
        .confirmations(confirmer);
    if signed_in {
        state = state.users(Arc::new(StoreUsers(app.store.clone())));
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
