//! Who is asking. On loopback the server belongs to its one local user and nobody signs
//! in. With users ([`WebState::users`](crate::WebState::users)) every API request must
//! carry a user's token — `Authorization: Bearer <token>`, or the `smallebot_token`
//! cookie the page gets from `POST /api/login` (HttpOnly, 30 days) — and sees only
//! that user's conversations.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Request, State};
use axum::http::HeaderMap;
use axum::http::header::{AUTHORIZATION, COOKIE};
use axum::http::request::Parts;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rand::RngCore;
use sha2::{Digest, Sha256};
use smallebot_application::ConversationService;

use crate::error::ApiError;
use crate::state::WebState;
pub use crate::users::{TokenUsers, UserServices, UserSkills};

/// The cookie that carries the token for the page.
pub const TOKEN_COOKIE: &str = "smallebot_token";

/// A fresh random token (256 bits, as 64 hex digits). Show it once; store only its
/// [`token_digest`].
#[must_use]
pub fn new_token() -> String {
    let mut bytes = [0u8; 32];
    rand::rng().fill_bytes(&mut bytes);
    hex(&bytes)
}

/// The SHA-256 of `token`, as 64 hex digits: what is stored and looked up.
#[must_use]
pub fn token_digest(token: &str) -> String {
    hex(&Sha256::digest(token.trim().as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    bytes
        .iter()
        .fold(String::with_capacity(bytes.len() * 2), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// The user a request is made for.
#[derive(Debug, Clone)]
pub(crate) struct CurrentUser(pub(crate) Arc<str>);

/// The conversation service of the request's user.
#[derive(Clone)]
pub(crate) struct UserService(pub(crate) Arc<ConversationService>);

impl<S: Send + Sync> FromRequestParts<S> for UserService {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<UserService>()
            .cloned()
            .ok_or_else(|| ApiError::internal("the request passed no authentication"))
    }
}

impl<S: Send + Sync> FromRequestParts<S> for CurrentUser {
    type Rejection = ApiError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, ApiError> {
        parts
            .extensions
            .get::<CurrentUser>()
            .cloned()
            .ok_or_else(|| ApiError::internal("the request passed no authentication"))
    }
}

/// The token a request carries, from `Authorization: Bearer` or the cookie.
fn token(headers: &HeaderMap) -> Option<String> {
    let bearer = headers
        .get(AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "))
        .map(str::trim)
        .filter(|t| !t.is_empty());
    if let Some(token) = bearer {
        return Some(token.to_owned());
    }
    cookie(headers, TOKEN_COOKIE)
}

/// The value of the request's cookie `name`, when it carries a non-empty one.
pub(crate) fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(cookie, _)| *cookie == name)
        .map(|(_, value)| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

/// Looks the request's user up (or takes the local user when there are no users) and
/// passes the request on with it; `401` for a missing or unknown token.
pub(crate) async fn authenticate(
    State(state): State<WebState>,
    mut request: Request,
    next: Next,
) -> Response {
    let user = match &state.users {
        None => Arc::clone(&state.user_name),
        Some(users) => match user_for(users.as_ref(), request.headers()).await {
            Ok(name) => name,
            Err(refusal) => return refusal.into_response(),
        },
    };
    let service = match &state.per_user {
        None => Arc::clone(&state.service),
        Some(services) => match services.service_for(&user).await {
            Ok(service) => service,
            Err(err) => {
                return ApiError::internal(format!("cannot serve user '{user}': {err}"))
                    .into_response();
            }
        },
    };
    request.extensions_mut().insert(CurrentUser(user));
    request.extensions_mut().insert(UserService(service));
    next.run(request).await
}

pub(crate) async fn user_for(
    users: &dyn TokenUsers,
    headers: &HeaderMap,
) -> Result<Arc<str>, ApiError> {
    let token = token(headers).ok_or_else(|| {
        ApiError::unauthorized("sign in: send your token as `Authorization: Bearer <token>`")
    })?;
    match users.user_for_digest(&token_digest(&token)).await? {
        Some(name) => Ok(Arc::from(name)),
        None => Err(ApiError::unauthorized(
            "this token belongs to no user; `smallebot users add NAME` makes one",
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::HeaderValue;

    #[test]
    fn tokens_are_fresh_and_only_their_digest_is_compared() {
        let (a, b) = (new_token(), new_token());
        assert_eq!(a.len(), 64);
        assert!(a.chars().all(|c| c.is_ascii_hexdigit()));
        assert_ne!(a, b);
        assert_eq!(token_digest(&a), token_digest(&format!(" {a}\n")));
        assert_ne!(token_digest(&a), token_digest(&b));
        assert_eq!(
            token_digest("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn the_token_comes_from_the_header_or_the_cookie() {
        let mut headers = HeaderMap::new();
        assert_eq!(token(&headers), None);
        headers.insert(
            COOKIE,
            HeaderValue::from_static("a=1; smallebot_token=t1; b=2"),
        );
        assert_eq!(token(&headers).as_deref(), Some("t1"));
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Bearer t2"));
        assert_eq!(token(&headers).as_deref(), Some("t2"));
        headers.insert(AUTHORIZATION, HeaderValue::from_static("Basic xyz"));
        assert_eq!(token(&headers).as_deref(), Some("t1"));
    }
}
