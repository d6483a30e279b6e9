//! Opening connections to PostgreSQL: the pool every store and migration uses.

use std::str::FromStr;
use std::time::Duration;

use sqlx::postgres::{PgConnectOptions, PgPoolOptions};
use sqlx::{Connection as _, PgConnection, PgPool};

use crate::error::{PgStoreError, redact_url};

/// Pooled connections per process (each server process has its own pool); the store's
/// writer and its own read connection (a turn's reads) hold one more each.
pub(crate) const MAX_CONNECTIONS: u32 = 16;
/// How long a caller waits for a connection before the operation fails as
/// unavailable: a server that is down fails requests within seconds instead of
/// holding them (sqlx retries a refused connection until then).
pub(crate) const ACQUIRE_TIMEOUT: Duration = Duration::from_secs(5);
/// A pooled connection idle at least this long is pinged before it is handed out. A
/// turn waits seconds for its model between statements, so its connections are pinged
/// as before; under load (many turns, connections handed on at once) the ping, a round
/// trip per statement, is skipped. A server that drops connections within this window
/// fails the one statement that meets a dropped one.
pub(crate) const PING_AFTER_IDLE: Duration = Duration::from_secs(1);

/// A pool of up to `connections` to `url`, and the URL with its password removed.
pub(crate) async fn connect_pool(
    url: &str,
    connections: u32,
) -> Result<(PgPool, String), PgStoreError> {
    let shown = redact_url(url);
    let options = PgConnectOptions::from_str(url).map_err(|err| PgStoreError::BadUrl {
        url: shown.clone(),
        reason: err.to_string(),
    })?;
    let refused = |source| PgStoreError::Connect {
        url: shown.clone(),
        source,
    };
    // One direct connection first: the pool would retry a refused connection until
    // its acquire timeout, and a wrong URL should fail at once.
    let probe = PgConnection::connect_with(&options)
        .await
        .map_err(refused)?;
    let _ = probe.close().await;
    let pool = PgPoolOptions::new()
        .max_connections(connections)
        .acquire_timeout(ACQUIRE_TIMEOUT)
        // sqlx pings every connection it hands out by default: a second round trip to
        // the server for each statement. Ping only those idle for PING_AFTER_IDLE; a
        // connection that fails the ping is closed and another one handed out.
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= PING_AFTER_IDLE {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        .connect_with(options)
        .await
        .map_err(refused)?;
    Ok((pool, shown))
}
