//! `GET /healthz`.

/// Answers `ok` while the server runs.
pub(crate) async fn healthz() -> &'static str {
    "ok"
}
