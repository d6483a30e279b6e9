//! The authorization server's book-keeping: registered clients, pending codes, issued
//! tokens with their lifetime and revocation, and the bearer token of every MCP request.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use base64::Engine;
use sha2::Digest;

/// A client the server knows: registered dynamically or configured by the test.
#[derive(Debug, Clone)]
pub(super) struct Client {
    /// Its secret, for client credentials; `None` for a public client.
    pub(super) secret: Option<String>,
    /// The redirect URIs it registered (empty: any loopback URI).
    pub(super) redirect_uris: Vec<String>,
}

/// A code handed out by the authorize endpoint, waiting for its exchange.
#[derive(Debug, Clone)]
pub(super) struct PendingCode {
    pub(super) client_id: String,
    pub(super) challenge: String,
    pub(super) redirect_uri: String,
    pub(super) resource: String,
    /// The account the person chose on the authorize step.
    pub(super) account: String,
}

/// An issued access or refresh token.
#[derive(Debug, Clone)]
struct Issued {
    client_id: String,
    /// Whose account the token acts for.
    account: String,
    /// When an access token stops working; `None` for a refresh token.
    expires_at: Option<Instant>,
    revoked: bool,
}

/// What the token endpoint answers.
#[derive(Debug, Clone, serde::Serialize)]
pub(super) struct TokenAnswer {
    pub(super) access_token: String,
    pub(super) token_type: &'static str,
    pub(super) expires_in: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(super) refresh_token: Option<String>,
    pub(super) scope: String,
}

/// Everything the server remembers.
#[derive(Debug)]
pub(super) struct Grants {
    pub(super) clients: HashMap<String, Client>,
    pub(super) codes: HashMap<String, PendingCode>,
    access: HashMap<String, Issued>,
    refresh: HashMap<String, Issued>,
    /// How long the next access tokens live.
    pub(super) lifetime: Duration,
    /// The bearer token of each MCP request, in order (`None`: no token).
    pub(super) bearers: Vec<Option<String>>,
    /// The grant type of each token request, in order.
    pub(super) token_requests: Vec<String>,
    /// The `resource` of each authorize and token request, in order.
    pub(super) resources: Vec<Option<String>>,
    /// Each token revoked through the revocation endpoint, in order.
    pub(super) revocations: Vec<String>,
    /// Each MCP `tools/call`: its bearer token, the tool's name and its arguments.
    pub(super) tool_calls: Vec<(Option<String>, String, serde_json::Value)>,
    counter: u64,
}

impl Grants {
    /// Nothing issued yet; tokens live an hour.
    pub(super) fn new() -> Self {
        Self {
            clients: HashMap::new(),
            codes: HashMap::new(),
            access: HashMap::new(),
            refresh: HashMap::new(),
            lifetime: Duration::from_secs(3600),
            bearers: Vec::new(),
            token_requests: Vec::new(),
            resources: Vec::new(),
            revocations: Vec::new(),
            tool_calls: Vec::new(),
            counter: 0,
        }
    }

    /// A fresh identifier with `prefix`.
    pub(super) fn next_id(&mut self, prefix: &str) -> String {
        self.counter += 1;
        format!("{prefix}-{}", self.counter)
    }

    /// Issues an access token for `client_id` acting for `account` (and a refresh
    /// token when asked).
    pub(super) fn issue(
        &mut self,
        client_id: &str,
        account: &str,
        with_refresh: bool,
    ) -> TokenAnswer {
        let access_token = self.next_id("access");
        self.access.insert(
            access_token.clone(),
            Issued {
                client_id: client_id.to_owned(),
                account: account.to_owned(),
                expires_at: Some(Instant::now() + self.lifetime),
                revoked: false,
            },
        );
        let refresh_token = with_refresh.then(|| {
            let token = self.next_id("refresh");
            self.refresh.insert(
                token.clone(),
                Issued {
                    client_id: client_id.to_owned(),
                    account: account.to_owned(),
                    expires_at: None,
                    revoked: false,
                },
            );
            token
        });
        TokenAnswer {
            access_token,
            token_type: "Bearer",
            expires_in: self.lifetime.as_secs().max(1),
            refresh_token,
            scope: "mcp".to_owned(),
        }
    }

    /// Whether `token` is a live access token.
    pub(super) fn access_valid(&self, token: &str) -> bool {
        self.access.get(token).is_some_and(|issued| {
            !issued.revoked && issued.expires_at.is_none_or(|at| Instant::now() < at)
        })
    }

    /// Uses up `token` (rotation): the account it acts for, when it is a live refresh
    /// token of `client_id`.
    pub(super) fn take_refresh(&mut self, token: &str, client_id: &str) -> Option<String> {
        match self.refresh.get_mut(token) {
            Some(issued) if !issued.revoked && issued.client_id == client_id => {
                issued.revoked = true;
                Some(issued.account.clone())
            }
            _ => None,
        }
    }

    /// The account an access or refresh token acts for.
    pub(super) fn account_of(&self, token: &str) -> Option<String> {
        self.access
            .get(token)
            .or_else(|| self.refresh.get(token))
            .map(|issued| issued.account.clone())
    }

    /// Revokes one token, access or refresh; whether it was known.
    pub(super) fn revoke(&mut self, token: &str) -> bool {
        let mut known = false;
        for map in [&mut self.access, &mut self.refresh] {
            if let Some(issued) = map.get_mut(token) {
                issued.revoked = true;
                known = true;
            }
        }
        known
    }

    /// Revokes every token issued so far.
    pub(super) fn revoke_all(&mut self) {
        for issued in self.access.values_mut().chain(self.refresh.values_mut()) {
            issued.revoked = true;
        }
    }

    /// Ends every access token now (refresh tokens keep working).
    pub(super) fn expire_all(&mut self) {
        let now = Instant::now();
        for issued in self.access.values_mut() {
            issued.expires_at = Some(now);
        }
    }

    /// How many refresh tokens are live.
    pub(super) fn live_refresh_tokens(&self) -> usize {
        self.refresh.values().filter(|i| !i.revoked).count()
    }
}

/// The S256 challenge of a PKCE `verifier` (RFC 7636): base64url of its SHA-256,
/// without padding.
#[must_use]
pub(super) fn s256(verifier: &str) -> String {
    base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(sha2::Sha256::digest(verifier))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn s256_matches_rfc_7636_appendix_b() {
        assert_eq!(
            s256("dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk"),
            "E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM"
        );
    }

    #[test]
    fn tokens_expire_rotate_and_revoke() {
        let mut grants = Grants::new();
        let answer = grants.issue("c", "ann", true);
        assert!(grants.access_valid(&answer.access_token));
        assert_eq!(
            grants.account_of(&answer.access_token).as_deref(),
            Some("ann")
        );
        let refresh = answer.refresh_token.unwrap_or_default();
        assert_eq!(grants.take_refresh(&refresh, "other"), None);
        assert_eq!(grants.take_refresh(&refresh, "c").as_deref(), Some("ann"));
        assert_eq!(
            grants.take_refresh(&refresh, "c"),
            None,
            "rotated: used once"
        );
        grants.expire_all();
        assert!(!grants.access_valid(&answer.access_token));
        let second = grants.issue("c", "bob", false);
        assert!(second.refresh_token.is_none());
        assert!(grants.revoke(&second.access_token));
        assert!(!grants.access_valid(&second.access_token));
        assert!(!grants.revoke("unknown"));
    }
}
