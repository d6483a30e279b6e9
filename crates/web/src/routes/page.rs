//! The page: HTML, ES modules, style and icon embedded in the binary (no CDN, no build
//! step). `/` and `/c/{id}` (one URL per conversation) answer the same page; the
//! modules pick the conversation from the address.

use axum::extract::Path;
use axum::http::StatusCode;
use axum::http::header::{
    CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE, REFERRER_POLICY, X_CONTENT_TYPE_OPTIONS,
    X_FRAME_OPTIONS,
};
use axum::response::{IntoResponse, Response};

const INDEX_HTML: &str = include_str!("../../assets/index.html");
const FAVICON: &str = include_str!("../../assets/favicon.svg");

const JS: &str = "text/javascript; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";

/// A module under assets/js/, as an [`ASSETS`] entry.
macro_rules! module {
    ($name:literal) => {
        (
            concat!("js/", $name),
            JS,
            include_str!(concat!("../../assets/js/", $name)),
        )
    };
}

/// Every file under `/assets/`: its path there, its type, its text.
const ASSETS: &[(&str, &str, &str)] = &[
    ("app.css", CSS, include_str!("../../assets/app.css")),
    module!("account.js"),
    module!("actions.js"),
    module!("api.js"),
    module!("attachments.js"),
    module!("changes.js"),
    module!("compression.js"),
    module!("confirmation.js"),
    module!("connection.js"),
    module!("conversation.js"),
    module!("diff.js"),
    module!("dom.js"),
    module!("elicitation.js"),
    module!("layout.js"),
    module!("list.js"),
    module!("main.js"),
    module!("markdown.js"),
    module!("mcp.js"),
    module!("mcp_offers.js"),
    module!("models.js"),
    module!("outage.js"),
    module!("permissions.js"),
    module!("plan.js"),
    module!("router.js"),
    module!("search.js"),
    module!("session.js"),
    module!("shortcuts.js"),
    module!("skills.js"),
    module!("spending.js"),
    module!("stream.js"),
    module!("subagents.js"),
    module!("theme.js"),
    module!("timeline.js"),
    module!("toolcards.js"),
    module!("usage.js"),
    module!("versions.js"),
    (
        "vendor/highlight.min.js",
        JS,
        include_str!("../../assets/vendor/highlight.min.js"),
    ),
];

/// Only the server's own script, style and connections; no inline script, no framing.
/// A second line of defence behind the sanitized answers.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; \
                   connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

/// `GET /` and `GET /c/{id}`: the page.
pub(crate) async fn index() -> impl IntoResponse {
    (
        [
            (CONTENT_TYPE, "text/html; charset=utf-8"),
            (CONTENT_SECURITY_POLICY, CSP),
            (X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (X_FRAME_OPTIONS, "DENY"),
            (REFERRER_POLICY, "no-referrer"),
            (CACHE_CONTROL, "no-cache"),
        ],
        INDEX_HTML,
    )
}

/// `GET /assets/{path}`: a module, the style; `404` for anything else.
pub(crate) async fn asset(Path(path): Path<String>) -> Response {
    match ASSETS.iter().find(|(name, _, _)| *name == path) {
        Some((_, content_type, body)) => embedded(content_type, body),
        None => (StatusCode::NOT_FOUND, "no such asset").into_response(),
    }
}

/// `GET /favicon.ico`: the icon (an SVG).
pub(crate) async fn favicon() -> Response {
    embedded("image/svg+xml", FAVICON)
}

fn embedded(content_type: &'static str, body: &'static str) -> Response {
    (
        [
            (CONTENT_TYPE, content_type),
            (X_CONTENT_TYPE_OPTIONS, "nosniff"),
            (CACHE_CONTROL, "no-cache"),
        ],
        body,
    )
        .into_response()
}

#[cfg(test)]
mod tests {
    use super::ASSETS;

    /// Every file under assets/ is served, and every module a module imports is one.
    #[test]
    fn every_asset_file_is_served_and_every_import_resolves() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("assets");
        let mut on_disk = Vec::new();
        for sub in ["", "js", "vendor"] {
            for entry in std::fs::read_dir(dir.join(sub)).unwrap() {
                let name = entry.unwrap().file_name().into_string().unwrap();
                let served = if sub.is_empty() {
                    name
                } else {
                    format!("{sub}/{name}")
                };
                if served.ends_with(".js") || served.ends_with(".css") {
                    on_disk.push(served);
                }
            }
        }
        for file in &on_disk {
            assert!(
                ASSETS.iter().any(|(name, _, _)| name == file),
                "assets/{file} is not in ASSETS"
            );
        }
        for (name, _, body) in ASSETS {
            for line in body.lines().filter(|l| l.starts_with("import ")) {
                let target = line.split('"').nth(1).unwrap();
                let wanted = match target.strip_prefix("../") {
                    Some(up) => up.to_owned(),
                    None => format!("js/{}", target.trim_start_matches("./")),
                };
                assert!(
                    ASSETS.iter().any(|(n, _, _)| *n == wanted),
                    "{name} imports {target}, which is not served"
                );
            }
        }
    }

    /// Every request the page makes goes through `api.js`, so that a failure shows the
    /// connection or outage banner and the server's own words; only the two probes that
    /// ask whether the server answers at all (`/healthz`, `/readyz`) call `fetch`
    /// themselves.
    #[test]
    fn the_page_asks_the_server_only_through_api_js() {
        const PROBES: [(&str, &str); 2] = [
            ("js/connection.js", "/healthz"),
            ("js/outage.js", "/readyz"),
        ];
        for (name, _, body) in ASSETS {
            if !name.starts_with("js/") || *name == "js/api.js" {
                continue;
            }
            for line in body.lines().filter(|l| l.contains("fetch(")) {
                let probe = PROBES.iter().any(|(file, path)| {
                    file == name && line.contains(&format!("fetch(\"{path}\""))
                });
                assert!(probe, "{name} calls fetch around api.js: {}", line.trim());
            }
        }
    }
}
