//! Forgetting sign-ins (`smallebot users remove`, `smallebot mcp logout`): each refresh
//! token (and access token) revoked at its authorization server (RFC 7009, when the
//! server's metadata names a `revocation_endpoint`), then the sealed row deleted.

use rmcp::transport::auth::AuthorizationManager;

use crate::credentials::McpSignIns;
use crate::error::McpAuthError;
use crate::settings::{McpServerSettings, McpSettings, McpTransport};

/// Revokes and deletes every sign-in of `sign_ins`' user; what could not be revoked,
/// one line per server (the row is deleted anyway: the user is going).
///
/// # Errors
/// The store failed listing or deleting the rows.
pub async fn forget_user(
    settings: &McpSettings,
    sign_ins: &McpSignIns,
) -> Result<Vec<String>, McpAuthError> {
    let mut warnings = Vec::new();
    for server in sign_ins.servers().await? {
        let named = settings.servers.iter().find(|s| s.name == server);
        if let Err(reason) = revoke(named, sign_ins, &server).await {
            warnings.push(format!(
                "the sign-in of user '{}' to MCP server '{server}' was deleted but not \
                 revoked at its authorization server: {reason}",
                sign_ins.user()
            ));
        }
        sign_ins.forget(&server).await?;
    }
    Ok(warnings)
}

/// Revokes the tokens of the stored sign-in to `server` (refresh token first), whose
/// settings are `settings` (`None`: mcp.json no longer names it).
pub(crate) async fn revoke(
    settings: Option<&McpServerSettings>,
    sign_ins: &McpSignIns,
    server: &str,
) -> Result<(), String> {
    let stored = sign_ins
        .load(server)
        .await
        .map_err(|e| e.to_string())?
        .ok_or_else(|| "it was gone".to_owned())?;
    let value = serde_json::to_value(&stored).map_err(|e| e.to_string())?;
    let token = &value["token_response"];
    let tokens: Vec<(&str, &str)> = [
        ("refresh_token", token["refresh_token"].as_str()),
        ("access_token", token["access_token"].as_str()),
    ]
    .into_iter()
    .filter_map(|(hint, t)| t.map(|t| (hint, t)))
    .collect();
    if tokens.is_empty() {
        return Ok(());
    }
    let url = settings
        .and_then(|s| match &s.transport {
            McpTransport::Http { url, .. } => Some(url.clone()),
            McpTransport::Stdio { .. } => None,
        })
        .ok_or_else(|| {
            "mcp.json no longer names the server, so its address is unknown".to_owned()
        })?;
    let manager = AuthorizationManager::new(url.as_str())
        .await
        .map_err(|e| e.to_string())?;
    let metadata = manager
        .resolve_metadata()
        .await
        .map_err(|e| format!("discovering its authorization server failed: {e}"))?
        .metadata;
    let Some(endpoint) = metadata
        .additional_fields
        .get("revocation_endpoint")
        .and_then(|v| v.as_str())
    else {
        return Err("its authorization server offers no revocation_endpoint".to_owned());
    };
    let client = reqwest::Client::new();
    for (hint, token) in tokens {
        let form = [
            ("token", token),
            ("token_type_hint", hint),
            ("client_id", stored.client_id.as_str()),
        ];
        let answer = client
            .post(endpoint)
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .body(form_body(&form))
            .send()
            .await
            .map_err(|e| format!("{endpoint}: {e}"))?;
        if !answer.status().is_success() {
            return Err(format!("{endpoint} answered {}", answer.status()));
        }
    }
    Ok(())
}

/// `pairs` as an `application/x-www-form-urlencoded` body.
fn form_body(pairs: &[(&str, &str)]) -> String {
    reqwest::Url::parse_with_params("http://form.invalid/", pairs)
        .ok()
        .and_then(|url| url.query().map(str::to_owned))
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn form_bodies_are_encoded() {
        let cases: [(&[(&str, &str)], &str); 2] = [
            (&[("token", "a b&c"), ("x", "1")], "token=a+b%26c&x=1"),
            (&[], ""),
        ];
        for (pairs, body) in cases {
            assert_eq!(form_body(pairs), body);
        }
    }
}
