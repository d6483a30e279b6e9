//! Sign-ins kept in the store, sealed: the SDK's credentials (client id, tokens) as
//! JSON, encrypted and authenticated with AES-256-GCM under the operator's key
//! ([`TOKEN_KEY_ENV`]), bound to the user and server they belong to (a row copied to
//! another user or server does not open). The store only ever sees the sealed bytes.

use std::sync::Arc;

use async_trait::async_trait;
use aws_lc_rs::aead::{AES_256_GCM, Aad, LessSafeKey, NONCE_LEN, Nonce, UnboundKey};
use aws_lc_rs::rand::{SecureRandom, SystemRandom};
use base64::Engine;
use rmcp::transport::auth::{AuthError, CredentialStore, StoredCredentials};
use smallebot_core::entities::McpCredential;
use smallebot_core::repository::McpCredentialRepository;

use crate::error::McpAuthError;
use crate::settings::TOKEN_KEY_ENV;

/// The key sign-ins are sealed with.
pub struct TokenKey {
    key: LessSafeKey,
}

impl std::fmt::Debug for TokenKey {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("TokenKey([REDACTED])")
    }
}

impl TokenKey {
    /// The key in `value` (base64 of 32 bytes), as read from [`TOKEN_KEY_ENV`].
    ///
    /// # Errors
    /// [`McpAuthError::Key`] when it is not base64 of exactly 32 bytes.
    pub fn from_base64(value: &str) -> Result<Self, McpAuthError> {
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(value.trim())
            .map_err(|e| McpAuthError::Key(format!("it is not base64 ({e})")))?;
        if bytes.len() != 32 {
            return Err(McpAuthError::Key(format!(
                "it decodes to {} bytes, not 32",
                bytes.len()
            )));
        }
        let unbound = UnboundKey::new(&AES_256_GCM, &bytes)
            .map_err(|_| McpAuthError::Key("the AES-256-GCM key was refused".to_owned()))?;
        Ok(Self {
            key: LessSafeKey::new(unbound),
        })
    }

    /// The key from `env` ([`TOKEN_KEY_ENV`]).
    ///
    /// # Errors
    /// [`McpAuthError::NoKey`] when it is not set, [`McpAuthError::Key`] when it is
    /// not a key.
    pub fn from_env(env: &dyn Fn(&str) -> Option<String>) -> Result<Self, McpAuthError> {
        match env(TOKEN_KEY_ENV) {
            Some(value) if !value.trim().is_empty() => Self::from_base64(&value),
            _ => Err(McpAuthError::NoKey),
        }
    }

    /// `plain` sealed for `user` and `server`: a random nonce, then the ciphertext
    /// and its tag.
    ///
    /// # Errors
    /// [`McpAuthError::Seal`] when no random nonce could be drawn.
    pub fn seal(&self, user: &str, server: &str, plain: &[u8]) -> Result<Vec<u8>, McpAuthError> {
        let mut nonce = [0_u8; NONCE_LEN];
        SystemRandom::new()
            .fill(&mut nonce)
            .map_err(|_| McpAuthError::Seal("no random nonce".to_owned()))?;
        let mut sealed = plain.to_vec();
        self.key
            .seal_in_place_append_tag(
                Nonce::assume_unique_for_key(nonce),
                Aad::from(binding(user, server)),
                &mut sealed,
            )
            .map_err(|_| McpAuthError::Seal("encryption failed".to_owned()))?;
        let mut out = nonce.to_vec();
        out.extend_from_slice(&sealed);
        Ok(out)
    }

    /// What [`TokenKey::seal`] sealed for `user` and `server`.
    ///
    /// # Errors
    /// [`McpAuthError::Open`] for another key, user or server, or altered bytes.
    pub fn open(&self, user: &str, server: &str, sealed: &[u8]) -> Result<Vec<u8>, McpAuthError> {
        let opened = || {
            let (nonce, body) = sealed.split_at_checked(NONCE_LEN)?;
            let nonce = Nonce::try_assume_unique_for_key(nonce).ok()?;
            let mut body = body.to_vec();
            let plain = self
                .key
                .open_in_place(nonce, Aad::from(binding(user, server)), &mut body)
                .ok()?;
            Some(plain.to_vec())
        };
        opened().ok_or_else(|| McpAuthError::Open {
            user: user.to_owned(),
            server: server.to_owned(),
        })
    }
}

/// The associated data binding a sealed sign-in to its user and server.
fn binding(user: &str, server: &str) -> Vec<u8> {
    format!("smallebot-mcp-credential\0{user}\0{server}").into_bytes()
}

/// Why there is no sealing key.
#[derive(Clone, Debug)]
enum KeyProblem {
    /// [`TOKEN_KEY_ENV`] is not set.
    Missing,
    /// It is set to something that is not a key (why).
    Invalid(String),
}

/// Where one user's sign-ins are kept: the store's repository and the sealing key.
#[derive(Clone)]
pub struct McpSignIns {
    repository: Arc<dyn McpCredentialRepository>,
    key: Result<Arc<TokenKey>, KeyProblem>,
    user: String,
}

impl McpSignIns {
    /// `user`'s sign-ins in `repository`, sealed with `key` (`None`: the key is not
    /// configured, so nothing can be stored or read, with an error saying so).
    #[must_use]
    pub fn new(
        repository: Arc<dyn McpCredentialRepository>,
        key: Option<Arc<TokenKey>>,
        user: &str,
    ) -> Self {
        Self {
            repository,
            key: key.ok_or(KeyProblem::Missing),
            user: user.to_owned(),
        }
    }

    /// `user`'s sign-ins in `repository`, sealed with the key in [`TOKEN_KEY_ENV`] as
    /// `env` gives it; a missing or unusable key is said when a sign-in is stored or
    /// read.
    #[must_use]
    pub fn from_env(
        repository: Arc<dyn McpCredentialRepository>,
        user: &str,
        env: &dyn Fn(&str) -> Option<String>,
    ) -> Self {
        let key = match TokenKey::from_env(env) {
            Ok(key) => Ok(Arc::new(key)),
            Err(McpAuthError::Key(why)) => Err(KeyProblem::Invalid(why)),
            Err(_) => Err(KeyProblem::Missing),
        };
        Self {
            repository,
            key,
            user: user.to_owned(),
        }
    }

    /// Whose sign-ins these are.
    #[must_use]
    pub fn user(&self) -> &str {
        &self.user
    }

    /// `user`'s sign-ins in the same store, under the same key.
    #[must_use]
    pub fn for_user(&self, user: &str) -> Self {
        Self {
            repository: Arc::clone(&self.repository),
            key: self.key.clone(),
            user: user.to_owned(),
        }
    }

    /// The servers this user has a sign-in to. Needs no key.
    ///
    /// # Errors
    /// The store failed.
    pub async fn servers(&self) -> Result<Vec<String>, McpAuthError> {
        self.repository
            .mcp_credentials_of(&self.user)
            .await
            .map(|rows| rows.into_iter().map(|row| row.server).collect())
            .map_err(|e| McpAuthError::Store(e.to_string()))
    }

    /// The key, or why there is none.
    fn key(&self) -> Result<&TokenKey, McpAuthError> {
        match &self.key {
            Ok(key) => Ok(key),
            Err(KeyProblem::Missing) => Err(McpAuthError::NoKey),
            Err(KeyProblem::Invalid(why)) => Err(McpAuthError::Key(why.clone())),
        }
    }

    /// The sign-in to `server`, opened.
    ///
    /// # Errors
    /// No key, the store failed, or the stored bytes do not open.
    pub async fn load(&self, server: &str) -> Result<Option<StoredCredentials>, McpAuthError> {
        let key = self.key()?;
        let Some(row) = self
            .repository
            .mcp_credential(&self.user, server)
            .await
            .map_err(|e| McpAuthError::Store(e.to_string()))?
        else {
            return Ok(None);
        };
        let sealed = base64::engine::general_purpose::STANDARD
            .decode(&row.sealed)
            .map_err(|_| McpAuthError::Open {
                user: self.user.clone(),
                server: server.to_owned(),
            })?;
        let plain = key.open(&self.user, server, &sealed)?;
        serde_json::from_slice(&plain)
            .map(Some)
            .map_err(|_| McpAuthError::Open {
                user: self.user.clone(),
                server: server.to_owned(),
            })
    }

    /// Stores `credentials` for `server`, sealed.
    ///
    /// # Errors
    /// No key, or the store failed.
    pub async fn save(
        &self,
        server: &str,
        credentials: &StoredCredentials,
    ) -> Result<(), McpAuthError> {
        let key = self.key()?;
        let plain = serde_json::to_vec(credentials)
            .map_err(|e| McpAuthError::Seal(format!("the credentials do not serialize: {e}")))?;
        let credential = McpCredential {
            user_name: self.user.clone(),
            server: server.to_owned(),
            sealed: base64::engine::general_purpose::STANDARD
                .encode(key.seal(&self.user, server, &plain)?),
            updated_at: chrono::Utc::now(),
        };
        self.repository
            .save_mcp_credential(&credential)
            .await
            .map_err(|e| McpAuthError::Store(e.to_string()))
    }

    /// Forgets the sign-in to `server`; whether there was one. Needs no key.
    ///
    /// # Errors
    /// The store failed.
    pub async fn forget(&self, server: &str) -> Result<bool, McpAuthError> {
        self.repository
            .delete_mcp_credential(&self.user, server)
            .await
            .map_err(|e| McpAuthError::Store(e.to_string()))
    }

    /// The SDK's credential store for `server`.
    pub(crate) fn store_for(&self, server: &str) -> ServerCredentials {
        ServerCredentials {
            sign_ins: self.clone(),
            server: server.to_owned(),
        }
    }
}

/// The SDK's view of one server's sign-in in the store.
pub(crate) struct ServerCredentials {
    sign_ins: McpSignIns,
    server: String,
}

/// The SDK's error for a failed store.
fn store_error(error: McpAuthError) -> AuthError {
    AuthError::CredentialStoreError(error.to_string())
}

#[async_trait]
impl CredentialStore for ServerCredentials {
    async fn load(&self) -> Result<Option<StoredCredentials>, AuthError> {
        self.sign_ins.load(&self.server).await.map_err(store_error)
    }

    async fn save(&self, credentials: StoredCredentials) -> Result<(), AuthError> {
        self.sign_ins
            .save(&self.server, &credentials)
            .await
            .map_err(store_error)
    }

    async fn clear(&self) -> Result<(), AuthError> {
        self.sign_ins
            .forget(&self.server)
            .await
            .map(drop)
            .map_err(store_error)
    }

    /// The authorization server refused the refresh token (revoked, expired): the
    /// tokens are dropped, the client kept, so `mcp list` says `expired`.
    async fn on_refresh_token_rejected(
        &self,
        credentials: &StoredCredentials,
    ) -> Result<(), AuthError> {
        let mut expired = credentials.clone();
        expired.token_response = None;
        self.sign_ins
            .save(&self.server, &expired)
            .await
            .map_err(store_error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn key(byte: u8) -> TokenKey {
        let value = base64::engine::general_purpose::STANDARD.encode([byte; 32]);
        TokenKey::from_base64(&value).unwrap_or_else(|e| panic!("{e}"))
    }

    #[test]
    fn sealed_opens_only_for_its_key_user_and_server() {
        let sealed = key(1)
            .seal("ann", "search", b"secret token")
            .unwrap_or_default();
        assert!(!sealed.windows(6).any(|w| w == b"secret"));
        assert_eq!(
            key(1).open("ann", "search", &sealed).ok().as_deref(),
            Some(&b"secret token"[..])
        );
        let cases = [
            (2, "ann", "search"),
            (1, "bob", "search"),
            (1, "ann", "mail"),
        ];
        for (byte, user, server) in cases {
            assert!(
                key(byte).open(user, server, &sealed).is_err(),
                "{user} {server}"
            );
        }
        let mut altered = sealed.clone();
        if let Some(last) = altered.last_mut() {
            *last ^= 1;
        }
        assert!(key(1).open("ann", "search", &altered).is_err());
        assert!(key(1).open("ann", "search", &[1, 2]).is_err());
    }

    #[test]
    fn keys_that_are_not_32_base64_bytes_are_refused() {
        let short = base64::engine::general_purpose::STANDARD.encode([0_u8; 16]);
        for value in ["not base64!", short.as_str(), ""] {
            assert!(
                matches!(TokenKey::from_base64(value), Err(McpAuthError::Key(_))),
                "{value}"
            );
        }
        assert!(matches!(
            TokenKey::from_env(&|_| None),
            Err(McpAuthError::NoKey)
        ));
    }
}
