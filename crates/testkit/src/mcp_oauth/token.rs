//! The authorization server's token endpoint (authorization code with PKCE and
//! `resource`, refresh tokens rotated, client credentials) and its revocation endpoint
//! (RFC 7009, each revocation recorded).

use axum::Json;
use axum::extract::{Form, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::json;

use super::grants::s256;
use super::{Shared, oauth_error};

/// The token request's form.
#[derive(Debug, Deserialize)]
pub(super) struct TokenForm {
    grant_type: String,
    code: Option<String>,
    code_verifier: Option<String>,
    redirect_uri: Option<String>,
    client_id: Option<String>,
    client_secret: Option<String>,
    refresh_token: Option<String>,
    resource: Option<String>,
}

/// The token endpoint: authorization code (PKCE, resource), refresh token (rotated),
/// client credentials (a configured secret, resource).
pub(super) async fn token(
    State(shared): State<Shared>,
    Form(form): Form<TokenForm>,
) -> (StatusCode, Json<serde_json::Value>) {
    let resource = shared.resource();
    let mut grants = shared.lock();
    grants.token_requests.push(form.grant_type.clone());
    grants.resources.push(form.resource.clone());
    let client_id = form.client_id.clone().unwrap_or_default();
    let wrong_resource = form.resource.as_deref().is_some_and(|r| r != resource);
    let answer = match form.grant_type.as_str() {
        "authorization_code" => {
            let pending = form.code.as_deref().and_then(|c| grants.codes.remove(c));
            let verified = pending.as_ref().is_some_and(|p| {
                p.client_id == client_id
                    && form.redirect_uri.as_deref() == Some(p.redirect_uri.as_str())
                    && form.code_verifier.as_deref().map(s256).as_deref()
                        == Some(p.challenge.as_str())
            });
            if !verified {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            }
            let Some(pending) = pending else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            };
            if form.resource.as_deref() != Some(pending.resource.as_str()) {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_target");
            }
            grants.issue(&client_id, &pending.account, true)
        }
        "refresh_token" => {
            let token = form.refresh_token.as_deref().unwrap_or_default();
            if wrong_resource {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_target");
            }
            let Some(account) = grants.take_refresh(token, &client_id) else {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_grant");
            };
            grants.issue(&client_id, &account, true)
        }
        "client_credentials" => {
            let secret_ok = grants
                .clients
                .get(&client_id)
                .and_then(|c| c.secret.as_deref())
                .is_some_and(|s| Some(s) == form.client_secret.as_deref());
            if !secret_ok {
                return oauth_error(StatusCode::UNAUTHORIZED, "invalid_client");
            }
            if form.resource.as_deref() != Some(resource.as_str()) {
                return oauth_error(StatusCode::BAD_REQUEST, "invalid_target");
            }
            grants.issue(&client_id, &client_id, false)
        }
        _ => return oauth_error(StatusCode::BAD_REQUEST, "unsupported_grant_type"),
    };
    (StatusCode::OK, Json(json!(answer)))
}

/// The revocation request's form.
#[derive(Debug, Deserialize)]
pub(super) struct RevokeForm {
    token: String,
}

/// RFC 7009: always 200; each token recorded.
pub(super) async fn revoke(
    State(shared): State<Shared>,
    Form(form): Form<RevokeForm>,
) -> StatusCode {
    let mut grants = shared.lock();
    grants.revoke(&form.token);
    grants.revocations.push(form.token);
    StatusCode::OK
}
