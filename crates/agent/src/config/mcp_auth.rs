//! mcp.json's `auth` of a remote server: how it signs in.
//!
//! ```json
//! "search": { "url": "https://mcp.example.com/mcp", "auth": { "type": "oauth" } }
//! "docs":   { "url": "https://docs.example.com/mcp",
//!             "auth": { "type": "oauth", "clientId": "smallebot", "scopes": ["read"] } }
//! "ci":     { "url": "https://ci.example.com/mcp",
//!             "auth": { "type": "clientCredentials", "clientId": "bot",
//!                       "clientSecretEnv": "CI_MCP_SECRET" } }
//! ```
//!
//! `oauth`: a person signs in with `smallebot mcp login NAME` (the client registers
//! itself unless `clientId` is given). `clientCredentials`: machine to machine, the
//! secret read from the variable `clientSecretEnv` names (never written in the file).

use schemars::JsonSchema;
use serde::Deserialize;

use smallebot_mcp::McpAuth;

/// `auth` as written.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "the sign-in of an MCP server (auth)"))]
pub(super) struct RawAuth {
    #[serde(rename = "type")]
    kind: String,
    client_id: Option<String>,
    client_secret_env: Option<String>,
    #[serde(default)]
    scopes: Vec<String>,
}

impl RawAuth {
    /// The sign-in these keys describe; the message says which rule is broken.
    pub(super) fn into_auth(self, env: &dyn Fn(&str) -> Option<String>) -> Result<McpAuth, String> {
        if self
            .scopes
            .iter()
            .any(|s| s.trim().is_empty() || s.contains(' '))
        {
            return Err("auth.scopes: each scope is one word, without spaces".to_owned());
        }
        if self
            .client_id
            .as_deref()
            .is_some_and(|id| id.trim().is_empty())
        {
            return Err("auth.clientId is empty".to_owned());
        }
        match self.kind.as_str() {
            "oauth" => {
                if self.client_secret_env.is_some() {
                    return Err(
                        "auth.clientSecretEnv is for \"type\": \"clientCredentials\"; a person \
                         signing in with \"oauth\" needs no secret"
                            .to_owned(),
                    );
                }
                Ok(McpAuth::OAuth {
                    client_id: self.client_id,
                    scopes: self.scopes,
                    per_user: false,
                })
            }
            "clientCredentials" => {
                let Some(client_id) = self.client_id else {
                    return Err("auth type \"clientCredentials\" needs \"clientId\"".to_owned());
                };
                let Some(variable) = self.client_secret_env else {
                    return Err(
                        "auth type \"clientCredentials\" needs \"clientSecretEnv\", the \
                         environment variable holding the client secret"
                            .to_owned(),
                    );
                };
                let Some(client_secret) = env(&variable).filter(|s| !s.is_empty()) else {
                    return Err(format!(
                        "auth.clientSecretEnv names {variable}, which is not set: export \
                         {variable}=... before starting"
                    ));
                };
                Ok(McpAuth::ClientCredentials {
                    client_id,
                    client_secret,
                    scopes: self.scopes,
                })
            }
            other => Err(format!(
                "unknown auth type \"{other}\"; use \"oauth\" or \"clientCredentials\""
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(json: &str) -> Result<McpAuth, String> {
        let raw: RawAuth = serde_json::from_str(json).map_err(|e| e.to_string())?;
        raw.into_auth(&|name| (name == "SECRET").then(|| "s3cret".to_owned()))
    }

    #[test]
    fn auth_kinds_and_their_rules() {
        let cases: [(&str, Result<McpAuth, &str>); 8] = [
            (
                r#"{"type": "oauth"}"#,
                Ok(McpAuth::OAuth {
                    client_id: None,
                    scopes: vec![],
                    per_user: false,
                }),
            ),
            (
                r#"{"type": "oauth", "clientId": "me", "scopes": ["read"]}"#,
                Ok(McpAuth::OAuth {
                    client_id: Some("me".to_owned()),
                    scopes: vec!["read".to_owned()],
                    per_user: false,
                }),
            ),
            (
                r#"{"type": "clientCredentials", "clientId": "bot", "clientSecretEnv": "SECRET"}"#,
                Ok(McpAuth::ClientCredentials {
                    client_id: "bot".to_owned(),
                    client_secret: "s3cret".to_owned(),
                    scopes: vec![],
                }),
            ),
            (
                r#"{"type": "clientCredentials", "clientId": "bot", "clientSecretEnv": "UNSET"}"#,
                Err("names UNSET, which is not set"),
            ),
            (
                r#"{"type": "clientCredentials", "clientSecretEnv": "SECRET"}"#,
                Err("needs \"clientId\""),
            ),
            (
                r#"{"type": "oauth", "clientSecretEnv": "SECRET"}"#,
                Err("needs no secret"),
            ),
            (r#"{"type": "basic"}"#, Err("unknown auth type \"basic\"")),
            (
                r#"{"type": "oauth", "scopes": ["a b"]}"#,
                Err("without spaces"),
            ),
        ];
        for (json, expected) in cases {
            match (parse(json), expected) {
                (Ok(got), Ok(want)) => assert_eq!(got, want, "{json}"),
                (Err(got), Err(want)) => assert!(got.contains(want), "{json}: {got}"),
                (got, want) => panic!("{json}: got {got:?}, want {want:?}"),
            }
        }
    }
}
