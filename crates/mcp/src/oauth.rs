//! OAuth 2.1 for streamable HTTP servers, through the SDK's `AuthorizationManager`
//! (on the `oauth2` crate): the manager of a server a person signed in to (their
//! sealed sign-in from the store), and of a machine-to-machine server (client
//! credentials, held in memory). The SDK's `AuthClient` then adds the token to every
//! request, refreshes it shortly before it expires and once on a `401`.

use rmcp::transport::auth::{AuthError, AuthorizationManager, ClientCredentialsConfig};

use crate::credentials::McpSignIns;

/// What a person is told when their sign-in is gone or no longer accepted.
pub(crate) fn sign_in_again(server: &str) -> String {
    format!(
        "the MCP server '{server}' no longer accepts your sign-in: sign in again with \
         `smallebot mcp login {server}` (on the web page: Connect in its MCP servers \
         dialog)"
    )
}

/// What a person is told before they ever signed in.
pub(crate) fn not_signed_in(server: &str) -> String {
    format!("not signed in to the MCP server '{server}': run `smallebot mcp login {server}`")
}

/// The manager of `server` at `url` with `user`'s stored sign-in.
///
/// # Errors
/// Not signed in, the store or key failed, or discovery failed.
pub(crate) async fn signed_in_manager(
    server: &str,
    url: &str,
    sign_ins: &McpSignIns,
) -> Result<AuthorizationManager, String> {
    // Before any discovery: no key means nothing can be read.
    if sign_ins
        .load(server)
        .await
        .map_err(|e| e.to_string())?
        .is_none()
    {
        return Err(not_signed_in(server));
    }
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| format!("OAuth for MCP server '{server}' at {url}: {e}"))?;
    manager.set_credential_store(sign_ins.store_for(server));
    match manager.initialize_from_store().await {
        Ok(true) => Ok(manager),
        Ok(false) => Err(sign_in_again(server)),
        Err(e) => Err(format!(
            "reading the sign-in to MCP server '{server}' failed: {e}"
        )),
    }
}

/// The manager of a machine-to-machine `server` at `url`, with a token just obtained
/// with its client credentials (the `resource` is the server's URL).
///
/// # Errors
/// Discovery or the token request failed.
pub(crate) async fn client_credentials_manager(
    server: &str,
    url: &str,
    client_id: &str,
    client_secret: &str,
    scopes: &[String],
) -> Result<AuthorizationManager, String> {
    let failed = |e: AuthError| {
        format!("client credentials sign-in to MCP server '{server}' at {url} failed: {e}")
    };
    let mut manager = AuthorizationManager::new(url).await.map_err(failed)?;
    let resolution = manager.resolve_metadata().await.map_err(failed)?;
    manager.set_metadata(resolution.metadata);
    let config = ClientCredentialsConfig::ClientSecret {
        client_id: client_id.to_owned(),
        client_secret: client_secret.to_owned(),
        scopes: scopes.to_vec(),
        resource: Some(url.to_owned()),
    };
    manager
        .configure_client_credentials(&config)
        .map_err(failed)?;
    manager
        .exchange_client_credentials(&config)
        .await
        .map_err(failed)?;
    Ok(manager)
}
