//! The boundary between the server's types and the wire: every SSE event and JSON body
//! the routes send is a `smallebot_protocol` type made here from the application's
//! events and core's entities ([`events`], [`bodies`]). Nothing inside the server is
//! serialized to a client directly.

pub(crate) mod bodies;
pub(crate) mod events;

use smallebot_core::time::Timestamp;

/// A timestamp as the protocol writes it: RFC 3339, UTC (`Z`).
pub(crate) fn time(at: Timestamp) -> String {
    at.to_rfc3339_opts(chrono::SecondsFormat::AutoSi, true)
}
