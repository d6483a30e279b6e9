//! How one server signs in: the OAuth manager its `auth` needs, and whether a
//! machine-to-machine token was refused.

use std::sync::atomic::Ordering;

use super::connection::McpConnection;
use crate::oauth::{client_credentials_manager, signed_in_manager};
use crate::settings::{McpAuth, McpTransport};

impl McpConnection {
    /// The OAuth manager `auth` needs, if any.
    pub(crate) async fn manager(
        &self,
        url: &str,
        auth: &McpAuth,
    ) -> Result<Option<rmcp::transport::auth::AuthorizationManager>, String> {
        let name = &self.settings().name;
        match auth {
            McpAuth::None => Ok(None),
            McpAuth::OAuth { .. } => {
                let Some(sign_ins) = self.sign_ins() else {
                    return Err(format!(
                        "the MCP server '{name}' uses OAuth, and this command keeps no sign-ins"
                    ));
                };
                signed_in_manager(name, url, &sign_ins).await.map(Some)
            }
            McpAuth::ClientCredentials {
                client_id,
                client_secret,
                scopes,
            } => client_credentials_manager(name, url, client_id, client_secret, scopes)
                .await
                .map(Some),
        }
    }

    /// Whether the server refused a machine-to-machine token.
    pub(crate) fn machine_token_lost(&self) -> bool {
        self.watch.auth_lost.load(Ordering::SeqCst)
            && matches!(
                &self.settings().transport,
                McpTransport::Http {
                    auth: McpAuth::ClientCredentials { .. },
                    ..
                }
            )
    }
}
