//! Signing the page in and out, and saying who is signed in: `POST /api/login`,
//! `POST /api/logout`, `GET /api/me`.

use std::net::SocketAddr;
use std::time::Instant;

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{ConnectInfo, State};
use axum::http::header::{AUTHORIZATION, ORIGIN, RETRY_AFTER, SET_COOKIE};
use axum::http::{Extensions, HeaderMap, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use smallebot_protocol::api::{LoggedIn, LoginBody, Me};

use crate::auth::{CurrentUser, TOKEN_COOKIE, user_for};
use crate::error::ApiError;
use crate::state::WebState;

/// How long the sign-in cookie lasts, in seconds (30 days).
pub const COOKIE_MAX_AGE_SECS: u64 = 30 * 24 * 60 * 60;

/// `POST /api/login`: `{"token"}` — when it is a user's, answers `{"user"}` and sets
/// the HttpOnly cookie the page's later requests carry (for
/// [`COOKIE_MAX_AGE_SECS`], `Secure` over https). Failed tries are limited per client
/// address (`429` with `Retry-After`, see [`crate::login_limit`]).
pub(crate) async fn login(
    State(state): State<WebState>,
    extensions: Extensions,
    headers: HeaderMap,
    body: Result<Json<LoginBody>, JsonRejection>,
) -> Result<Response, ApiError> {
    let client = extensions
        .get::<ConnectInfo<SocketAddr>>()
        .map(|ConnectInfo(addr)| addr.ip());
    if let Some(wait) = state.login_limit.wait(client, Instant::now()) {
        let secs = wait.as_secs().max(1);
        let refusal = ApiError::too_many(format!(
            "too many failed sign-ins from this address: try again in {secs} s"
        ));
        return Ok((
            [(RETRY_AFTER, HeaderValue::from(secs))],
            refusal.into_response(),
        )
            .into_response());
    }
    let Json(body) = body?;
    let Some(users) = &state.users else {
        let user = state.user_name.to_string();
        return Ok(Json(LoggedIn { user }).into_response());
    };
    let signed_in = signed_in_user(users.as_ref(), body.token.trim()).await;
    let user = match signed_in {
        Ok(user) => user,
        Err(refusal) => {
            if refusal.status() == StatusCode::UNAUTHORIZED {
                state.login_limit.failed(client, Instant::now());
            }
            return Err(refusal);
        }
    };
    let cookie = format!(
        "{TOKEN_COOKIE}={}; {}",
        body.token.trim(),
        cookie_attributes(secure(&state, &headers), COOKIE_MAX_AGE_SECS)
    );
    let cookie = HeaderValue::from_str(&cookie)
        .map_err(|_| ApiError::unauthorized("a token is 64 hex digits"))?;
    Ok((
        StatusCode::OK,
        [(SET_COOKIE, cookie)],
        Json(LoggedIn {
            user: user.to_string(),
        }),
    )
        .into_response())
}

/// The user whose token is `token`; `401` when it is nobody's.
async fn signed_in_user(
    users: &dyn crate::auth::TokenUsers,
    token: &str,
) -> Result<std::sync::Arc<str>, ApiError> {
    let mut headers = HeaderMap::new();
    headers.insert(
        AUTHORIZATION,
        HeaderValue::from_str(&format!("Bearer {token}"))
            .map_err(|_| ApiError::unauthorized("a token is 64 hex digits"))?,
    );
    user_for(users, &headers).await
}

/// `POST /api/logout`: clears the cookie (`204`), whatever token it held.
pub(crate) async fn logout(State(state): State<WebState>, headers: HeaderMap) -> Response {
    let cookie = format!(
        "{TOKEN_COOKIE}=; {}",
        cookie_attributes(secure(&state, &headers), 0)
    );
    match HeaderValue::from_str(&cookie) {
        Ok(cookie) => (StatusCode::NO_CONTENT, [(SET_COOKIE, cookie)]).into_response(),
        Err(_) => ApiError::internal("cannot write the cookie that signs out").into_response(),
    }
}

/// `GET /api/me`: `{"name", "sign_in", "admin"}`, the user the request is made for,
/// whether users sign in here (not on loopback without users) and whether they are an
/// admin.
pub(crate) async fn me(
    State(state): State<WebState>,
    user: CurrentUser,
) -> Result<Json<Me>, crate::error::ApiError> {
    let admin = crate::routes::usage::is_admin(&state, &user).await?;
    Ok(Json(Me {
        name: user.0.to_string(),
        sign_in: state.users.is_some(),
        admin,
    }))
}

/// The cookie's attributes: HttpOnly, SameSite=Strict, the whole site, `max_age`
/// seconds, and `Secure` when `secure`.
fn cookie_attributes(secure: bool, max_age: u64) -> String {
    let secure = if secure { "; Secure" } else { "" };
    format!("HttpOnly; SameSite=Strict; Path=/; Max-Age={max_age}{secure}")
}

/// Whether the page is served over https: the server was told so
/// ([`WebState::https`]), the request comes from an `https://` page, or a reverse
/// proxy says it took the request over https (`X-Forwarded-Proto`).
pub(crate) fn secure(state: &WebState, headers: &HeaderMap) -> bool {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_ascii_lowercase)
    };
    state.https
        || header(ORIGIN.as_str()).is_some_and(|o| o.starts_with("https://"))
        || header("x-forwarded-proto").is_some_and(|p| p.trim() == "https")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cookie_lasts_and_is_secure_only_over_https() {
        let cases = [
            (
                false,
                COOKIE_MAX_AGE_SECS,
                "HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000",
            ),
            (
                true,
                COOKIE_MAX_AGE_SECS,
                "HttpOnly; SameSite=Strict; Path=/; Max-Age=2592000; Secure",
            ),
            (
                true,
                0,
                "HttpOnly; SameSite=Strict; Path=/; Max-Age=0; Secure",
            ),
        ];
        for (secure, age, expected) in cases {
            assert_eq!(cookie_attributes(secure, age), expected);
        }
    }
}
