//! # smallebot-application
//!
//! The conversation pipeline of SmallEBot (docs/design.md §3): one turn at a time per
//! conversation, the user message persisted before the model is called, the tool loop
//! with every tool call stored as it finishes, events to any number of subscribers,
//! cancellation with partial text kept, titles, edit and regenerate.
//!
//! It knows no HTTP, SQL or file formats. It talks to ports: the repository traits of
//! `smallebot-core`, and the traits in [`ports`] that the agent crate implements (the
//! model, the context assembler, the tools, the summarizer, the task plan). A tool learns
//! which conversation it works for from its `ToolContext`.
//!
//! Events ([`events`]) are per conversation: subscribe with
//! [`ConversationService::subscribe`] and receive numbered [`Event`]s.

pub mod error;
pub mod events;
pub mod export;
pub mod metering;
pub mod pipeline;
pub mod ports;
pub mod rewrite;
pub mod wire;

pub use error::PipelineError;
pub use events::{Event, EventKind, EventSubscription};
pub use pipeline::{ConversationService, PipelineSettings, SendOptions, TurnHandle, TurnOutcome};
