//! # smallebot-protocol
//!
//! The wire protocol of SmallEBot's web server: what goes over its server-sent event
//! stream ([`events`]) and in the JSON bodies of its HTTP API ([`api`], with the
//! [`attachments`] of messages), with the plan
//! as structured data ([`plan`]). The types are serde types and derive
//! [`schemars::JsonSchema`]; [`schema`] builds the JSON Schema checked into
//! `docs/protocol.schema.json`, and `docs/protocol.md` says which fields a client may
//! rely on.
//!
//! These types are not the server's internal ones: the web crate maps its events and
//! entities to them at its boundary, so the inside may change without the wire
//! changing. The crate is a leaf (serde and schemars only): a client in Rust depends on
//! it alone.
//!
//! ## Versions
//!
//! [`PROTOCOL_VERSION`] is sent on every API answer in the [`VERSION_HEADER`] header and
//! stands in the schema. Additions — a new field, a new event type, a new value of an
//! enumeration — keep the version; a client ignores what it does not know (the enums
//! here are `#[non_exhaustive]` and read an unknown value as `Unknown`). Removing or
//! renaming a field, or changing what one means, raises it.
//!
//! ```
//! use smallebot_protocol::events::{Event, EventKind};
//!
//! let json = r#"{"conversation_id":"c","turn_id":"t","seq":3,"type":"TextDelta","text":"Hi"}"#;
//! let event: Event = serde_json::from_str(json).unwrap();
//! assert_eq!(event.seq, 3);
//! assert!(matches!(event.kind, EventKind::TextDelta { ref text } if text == "Hi"));
//! // A type this client does not know yet is read, not refused.
//! let newer = r#"{"conversation_id":"c","seq":4,"type":"SomethingNew","x":1}"#;
//! let event: Event = serde_json::from_str(newer).unwrap();
//! assert!(matches!(event.kind, EventKind::Unknown));
//! ```

pub mod api;
pub mod attachments;
pub mod events;
pub mod history;
pub mod plan;
pub mod schema;

/// The protocol's version: raised when a field is removed or renamed or changes
/// meaning, never for additions.
pub const PROTOCOL_VERSION: u32 = 1;

/// The response header that carries [`PROTOCOL_VERSION`] on every API answer.
pub const VERSION_HEADER: &str = "smallebot-protocol";
