//! # smallebot-web
//!
//! SmallEBot's web interface, as a library: [`router`] builds an axum [`Router`] over a
//! [`ConversationService`](smallebot_application::ConversationService), so the host
//! serves it and another program can mount it under its own prefix; [`serve`] serves it
//! on a listener (an event stream then costs its connection little while it idles).
//!
//! Built so far (per-user workspaces and the model picker come next):
//!
//! | route | what |
//! | --- | --- |
//! | `GET /`, `GET /c/{id}` | the page (its modules and style under `/assets/`, its icon at `/favicon.ico`) |
//! | `GET /healthz` | `ok` (the process runs) |
//! | `GET /readyz` | `{"ready": true}`, or `503` while the database does not answer within 2 s |
//! | `POST /api/login` | `{"token"}`: sets the page's HttpOnly cookie for 30 days; failed tries limited per address (`429`, [`login_limit`]) |
//! | `POST /api/logout` | clears the cookie (`204`) |
//! | `GET /api/me` | `{"name", "sign_in", "admin"}`: who is signed in (the local user without users), whether users sign in, whether they are an admin |
//! | `GET /api/conversations` | the user's conversations, newest first |
//! | `POST /api/conversations` | a new conversation (`201`); with `{"message", "model"}` created with its first turn started (`turn_id`) |
//! | `GET /api/conversations/{id}` | the conversation and its timeline, summarized and undone rows marked, each turn's outcome, earlier versions of rewritten exchanges |
//! | `PATCH /api/conversations/{id}` | `{"title"}` renames it |
//! | `GET /api/conversations/{id}/export?format=md\|json` | the conversation as a Markdown or JSON attachment |
//! | `DELETE /api/conversations/{id}` | deletes it (`409` while a turn runs) |
//! | `POST /api/conversations/{id}/attachments` | multipart files stored on no message yet (`201`, `413` over agent.json's limits, nothing stored) |
//! | `GET /api/conversations/{id}/attachments/{attachment_id}` | a file's content: sniffed type, `nosniff`, `sandbox` CSP, inline only for raster images |
//! | `POST /api/conversations/{id}/messages` | `{"text", "attachments"}` starts a turn; answers `202 {"turn_id"}` at once, `409` while another runs |
//! | `POST /api/conversations/{id}/messages/{message_id}/edit` | `{"text"}` replaces a user message and runs a new turn (`202`) |
//! | `POST /api/conversations/{id}/turns/{turn_id}/regenerate` | answers a turn's message again (`202`) |
//! | `POST /api/conversations/{id}/cancel` | cancels the running turn |
//! | `POST /api/conversations/{id}/compact` | `{"focus"}` (optional): summarizes older turns now |
//! | `POST /api/conversations/{id}/undo` | the last turn in the context leaves it (kept, marked `undone`) |
//! | `GET /api/conversations/{id}/turns/{turn_id}/diff?path=` | what a turn did to one file's text, as a unified diff |
//! | `POST /api/conversations/{id}/rewind` | `{"to_turn", "scope", "force", "undo"}`: the turns' changes to the files taken back, the turns undone, or both (`409` while a turn runs) |
//! | `POST /api/conversations/{id}/confirmation` | `{"request_id", "approve"}` answers a command waiting for confirmation ([`WebConfirmer`]) |
//! | `POST /api/conversations/{id}/elicitation` | `{"request_id", "action", "content"}` answers an MCP server's form ([`WebElicitor`]); `400` naming the fields that do not fit |
//! | `GET /api/search?q=&days=&limit=` | full-text search over the user's history, each hit with a snippet as marked parts |
//! | `GET /api/usage?user=&since=&by=&conversation=` | recorded model requests summed by day, model, user or conversation (the body of `smallebot usage --json`); a user's own, an admin's everyone's (`403` for another user's otherwise) |
//! | `GET /api/skills` | the skills the user sees (shared and their own), with problems |
//! | `GET /api/skills/{name}` | one skill: description, instructions, files, allowed-tools |
//! | `GET /api/agents` | the agent definitions the user sees (built-in, shared and their own), with problems |
//! | `GET /api/mcp/servers` | the MCP servers as the user sees them: `per_user`, and `state` (`connected`, `signed_in`, `expired`, `not_connected`) |
//! | `POST /api/mcp/servers/{name}/connect` | `{"url"}`: the authorization URL (PKCE, `resource`) that starts the user's own sign-in |
//! | `GET /api/mcp/resources` | the resources and resource templates (with their arguments) of the user's servers: what `@` offers in the message box |
//! | `POST /api/mcp/resources/read` | `{server, uri, arguments}`: the resource (a template expanded with `arguments`) as files, base64, each within `attachments.maxFileBytes` (`413` as an upload); the page sends them with the message as uploaded files |
//! | `GET /api/mcp/prompts` | the prompts (with their arguments) of the user's servers: what `/` offers in the message box |
//! | `POST /api/mcp/prompts/{server}/{name}` | `{arguments}`: `{"text"}`, the prompt's messages as one message (`400` naming a required argument missing) |
//! | `GET /api/mcp/callback?code=&state=` | the authorization server's redirect (no sign-in: `state` names the user and server, and only the browser that pressed Connect — its `smallebot_mcp_browser` cookie — may finish it): stores the sign-in sealed, connects, a small page says so |
//! | `POST /api/markdown?open=` | Markdown (the body) as safe HTML: the page's rendering of a streaming answer |
//! | `GET /api/conversations/{id}/events` | that conversation's events as server-sent events, each with its sequence number as `id`; `Last-Event-ID` resumes, a new stream starts with the running turn's events so far, a client too far behind gets a `reload` event |
//!
//! Every body and event is a type of the `smallebot_protocol` crate (the events are the
//! application's own, its `wire` module makes the bodies; docs/protocol.md says which fields a client may
//! rely on), and every answer carries the protocol's version in the
//! `smallebot-protocol` header; every answer under `/api/` is `Cache-Control: no-store`.
//!
//! Errors are JSON `{"error": "…"}` with `400` (bad or empty input), `401` (no user's
//! token, when there are users), `403` (another
//! host or site, see [`WebState::allow_hosts`]), `404` (unknown id), `409` (busy, or a
//! change that contradicts what is stored), `503` (the database cannot be reached) or
//! `500` (storage). Request bodies are limited to 1 MiB (an upload's to one message's
//! files, `413` past it). At most
//! [`TURN_STARTS_PER_CPU`] turns per CPU are being started at once (see
//! [`WebState::concurrent_turn_starts`]).

pub mod auth;
mod confirm;
mod elicit;
mod error;
mod guard;
mod images;
mod json_errors;
mod keep_alive;
pub mod login_limit;
mod markdown;
mod pending;
pub mod public_name;
mod render_pool;
pub mod request_log;
mod routes;
mod serve;
mod signin;
mod state;
mod users;

pub use confirm::{NothingPending, PendingConfirmation, WebConfirmer};
pub use elicit::{ElicitationRefused, PendingElicitation, WebElicitor};
pub use error::ApiError;
pub use public_name::{PublicName, PublicNameError};
pub use serve::serve;
pub use state::WebState;

use std::net::SocketAddr;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::http::HeaderValue;
use axum::middleware;
use axum::response::Response;
use axum::routing::{delete, get, post, put};

/// How many undelivered events one event stream may have before it is told to reload
/// (a client that stopped reading never holds a turn up or grows the server's memory).
/// Consecutive waiting deltas count as one: they go as one joined event.
pub const STREAM_QUEUE_EVENTS: usize = 2048;

/// How many bytes of undelivered answer text one event stream may have before it is
/// told to reload (a page busy drawing a long answer reads late; one that stopped
/// reading holds at most this much).
pub const STREAM_QUEUE_BYTES: usize = 8 * 1024 * 1024;

/// How many turns may be starting at once per CPU the process may use, by default (see
/// [`WebState::concurrent_turn_starts`]). A start is CPU work (reads, the token
/// estimate, the write, the first request): more at once than the CPUs can run only
/// queue up, and the running turns queue behind them.
pub const TURN_STARTS_PER_CPU: usize = 2;

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 1024 * 1024;

/// The `Host` values a server listening on `addr` answers to: the address itself and,
/// when it listens on loopback (or on every address), `localhost` and `127.0.0.1` with
/// its port.
pub fn hosts_for(addr: SocketAddr) -> Vec<String> {
    let mut hosts = vec![addr.to_string()];
    if addr.ip().is_loopback() || addr.ip().is_unspecified() {
        let port = addr.port();
        for local in [format!("localhost:{port}"), format!("127.0.0.1:{port}")] {
            if !hosts.contains(&local) {
                hosts.push(local);
            }
        }
    }
    hosts
}

/// The web interface's routes over `state`.
pub fn router(state: WebState) -> Router {
    use routes::{health, mcp, metrics, page};
    let upload_limit = attachments_limit(&state);
    conversation_routes(upload_limit)
        .merge(user_routes())
        // Everything above is a user's; below needs no sign-in.
        .route_layer(middleware::from_fn_with_state(
            state.clone(),
            auth::authenticate,
        ))
        .route("/", get(page::index))
        .route("/c/{id}", get(page::index))
        .route("/assets/{*path}", get(page::asset))
        .route("/favicon.ico", get(page::favicon))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .route("/metrics", get(metrics::metrics))
        .route("/api/login", post(signin::login))
        .route("/api/logout", post(signin::logout))
        // The authorization server's redirect: its `state` names the user, and only the
        // browser that started the sign-in may finish it.
        .route("/api/mcp/callback", get(mcp::callback))
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(middleware::from_fn_with_state(
            state.clone(),
            guard::same_site,
        ))
        // Every refusal under /api/ as JSON, the framework's own and the guard's too.
        .layer(middleware::from_fn_with_state(
            json_errors::Limits {
                body: MAX_BODY_BYTES,
                upload: upload_limit,
            },
            json_errors::json_errors,
        ))
        // Outermost: every answer, a refusal of the guard's included.
        .layer(middleware::from_fn(api_not_stored))
        .layer(middleware::map_response(protocol_version))
        // Outermost of all: the request's span and log line cover everything.
        .layer(middleware::from_fn_with_state(
            state.clone(),
            request_log::request_span,
        ))
        .with_state(state)
}

/// The most bytes an upload's body may have.
fn attachments_limit(state: &WebState) -> usize {
    routes::attachments::upload_body_limit(&state.service.settings().attachments)
}

/// The routes of one conversation of the signed-in user (`/api/conversations…`).
fn conversation_routes(upload_limit: usize) -> Router<WebState> {
    use routes::{
        attachments, conversations, elicitation, events, export, file_diff, models, rewind,
        timeline, turns,
    };
    Router::new()
        .route(
            "/api/conversations",
            get(conversations::list).post(conversations::create),
        )
        .route(
            "/api/conversations/{id}",
            get(timeline::timeline)
                .patch(conversations::rename)
                .delete(conversations::delete),
        )
        .route("/api/conversations/{id}/messages", post(turns::send))
        .route(
            "/api/conversations/{id}/attachments",
            post(attachments::upload).layer(DefaultBodyLimit::max(upload_limit)),
        )
        .route(
            "/api/conversations/{id}/attachments/{attachment_id}",
            get(attachments::content),
        )
        .route("/api/conversations/{id}/export", get(export::export))
        .route(
            "/api/conversations/{id}/messages/{message_id}/edit",
            post(turns::edit),
        )
        .route(
            "/api/conversations/{id}/turns/{turn_id}/regenerate",
            post(turns::regenerate),
        )
        .route("/api/conversations/{id}/model", put(models::choose))
        .route("/api/conversations/{id}/cancel", post(turns::cancel))
        .route("/api/conversations/{id}/compact", post(turns::compact))
        .route("/api/conversations/{id}/undo", post(turns::undo))
        .route("/api/conversations/{id}/rewind", post(rewind::rewind))
        .route(
            "/api/conversations/{id}/turns/{turn_id}/diff",
            get(file_diff::diff),
        )
        .route(
            "/api/conversations/{id}/confirmation",
            post(turns::confirmation),
        )
        .route(
            "/api/conversations/{id}/elicitation",
            post(elicitation::answer),
        )
        .route("/api/conversations/{id}/events", get(events::stream))
}

/// The signed-in user's other routes: search, usage, permissions, models, skills,
/// agents, Markdown and MCP servers.
fn user_routes() -> Router<WebState> {
    use routes::{agents, markdown, mcp, mcp_offers, models, permissions, search, skills, usage};
    Router::new()
        .route("/api/search", get(search::search))
        .route("/api/usage", get(usage::usage))
        .route("/api/permissions", get(permissions::list))
        .route("/api/permissions/{id}", delete(permissions::revoke))
        .route("/api/models", get(models::list))
        .route("/api/me", get(signin::me))
        .route("/api/skills", get(skills::list))
        .route("/api/agents", get(agents::list))
        .route("/api/skills/{name}", get(skills::show))
        .route("/api/markdown", post(markdown::render))
        .route("/api/mcp/servers", get(mcp::list))
        .route("/api/mcp/servers/{name}/connect", post(mcp::connect))
        .route("/api/mcp/resources", get(mcp_offers::resources))
        .route("/api/mcp/resources/read", post(mcp_offers::read))
        .route("/api/mcp/prompts", get(mcp_offers::prompts))
        .route("/api/mcp/prompts/{server}/{name}", post(mcp_offers::prompt))
}

/// Marks every answer under `/api/` `Cache-Control: no-store`: conversations are
/// private and change all the time, so neither a browser nor a proxy keeps them.
async fn api_not_stored(request: axum::extract::Request, next: middleware::Next) -> Response {
    let api = request.uri().path().starts_with("/api/");
    let mut response = next.run(request).await;
    if api {
        response.headers_mut().insert(
            axum::http::header::CACHE_CONTROL,
            HeaderValue::from_static("no-store"),
        );
    }
    response
}

/// Marks an answer with the protocol's version (see `smallebot_protocol::PROTOCOL_VERSION`).
async fn protocol_version(mut response: Response) -> Response {
    response.headers_mut().insert(
        smallebot_protocol::VERSION_HEADER,
        HeaderValue::from(smallebot_protocol::PROTOCOL_VERSION),
    );
    response
}
