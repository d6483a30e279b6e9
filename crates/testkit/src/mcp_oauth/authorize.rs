//! The authorization server's dynamic client registration (RFC 7591) and authorize
//! endpoint (a code at once, for the account the test names).

use axum::Json;
use axum::extract::{Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use serde::Deserialize;
use serde_json::json;

use super::grants::{Client, PendingCode};
use super::{Shared, oauth_error};

/// RFC 7591: a public client with the redirect URIs it asks for.
pub(super) async fn register(
    State(shared): State<Shared>,
    Json(body): Json<serde_json::Value>,
) -> (StatusCode, Json<serde_json::Value>) {
    let redirect_uris: Vec<String> = body
        .get("redirect_uris")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    if redirect_uris.is_empty() {
        return oauth_error(StatusCode::BAD_REQUEST, "invalid_redirect_uri");
    }
    let mut grants = shared.lock();
    let client_id = grants.next_id("registered");
    grants.clients.insert(
        client_id.clone(),
        Client {
            secret: None,
            redirect_uris: redirect_uris.clone(),
        },
    );
    let mut answer = body;
    if let Some(map) = answer.as_object_mut() {
        map.insert("client_id".to_owned(), json!(client_id));
        map.insert("token_endpoint_auth_method".to_owned(), json!("none"));
    }
    (StatusCode::CREATED, Json(answer))
}

/// The authorize request's parameters.
#[derive(Debug, Deserialize)]
pub(super) struct AuthorizeQuery {
    response_type: String,
    client_id: String,
    redirect_uri: String,
    code_challenge: Option<String>,
    code_challenge_method: Option<String>,
    state: Option<String>,
    resource: Option<String>,
    /// The account the person signs in with (the test adds it to the URL).
    account: Option<String>,
}

/// Redirects at once with a code, after checking the client, PKCE S256 and `resource`.
pub(super) async fn authorize(
    State(shared): State<Shared>,
    Query(query): Query<AuthorizeQuery>,
) -> Response {
    let mut grants = shared.lock();
    grants.resources.push(query.resource.clone());
    let known_redirect = grants.clients.get(&query.client_id).is_some_and(|client| {
        client.redirect_uris.is_empty() || client.redirect_uris.contains(&query.redirect_uri)
    });
    let problem = if query.response_type != "code" {
        Some("unsupported_response_type")
    } else if !known_redirect {
        Some("unauthorized_client")
    } else if query.code_challenge_method.as_deref() != Some("S256") {
        Some("invalid_request: PKCE S256 required")
    } else if query.resource.as_deref() != Some(shared.resource().as_str()) {
        Some("invalid_target")
    } else {
        None
    };
    if let Some(problem) = problem {
        return oauth_error(StatusCode::BAD_REQUEST, problem).into_response();
    }
    let code = grants.next_id("code");
    grants.codes.insert(
        code.clone(),
        PendingCode {
            client_id: query.client_id.clone(),
            challenge: query.code_challenge.unwrap_or_default(),
            redirect_uri: query.redirect_uri.clone(),
            resource: shared.resource(),
            account: query
                .account
                .clone()
                .unwrap_or_else(|| "default".to_owned()),
        },
    );
    let separator = if query.redirect_uri.contains('?') {
        '&'
    } else {
        '?'
    };
    let mut location = format!("{}{separator}code={code}", query.redirect_uri);
    if let Some(state) = query.state {
        location.push_str("&state=");
        location.push_str(&percent_encode(&state));
    }
    Redirect::to(&location).into_response()
}

/// `value` with everything but unreserved characters percent-encoded.
fn percent_encode(value: &str) -> String {
    value
        .bytes()
        .map(|b| {
            if b.is_ascii_alphanumeric() || b"-._~".contains(&b) {
                char::from(b).to_string()
            } else {
                format!("%{b:02X}")
            }
        })
        .collect()
}
