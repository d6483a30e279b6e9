//! The boundary between the server's types and the wire: every event and JSON body a
//! front end sends or prints — the web's stream and API, `smallebot run --json`,
//! `conversations export --format json` — is a `smallebot_protocol` type. The events
//! are the protocol's own ([`crate::events::EventKind`]); the bodies and the plan are
//! made here from core's entities ([`bodies`], [`plan`]), once for every front end.

pub mod bodies;
pub mod grants;
pub mod plan;
pub mod usage;

use smallebot_core::time::Timestamp;

/// A timestamp as the protocol writes it: RFC 3339, UTC (`Z`).
#[must_use]
pub fn time(at: Timestamp) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}
