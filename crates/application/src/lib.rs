//! # smallebot-application
//!
//! The conversation pipeline of SmallEBot (DESIGN.md §3): one turn at a time per
//! conversation, the user message persisted before the model is called, the tool loop
//! with every tool call stored as it finishes, events to any number of subscribers,
//! cancellation with partial text kept, titles, edit and regenerate.
//!
//! It knows no HTTP, SQL or file formats. It talks to ports: the repository traits of
//! `smallebot-core`, and the traits in [`ports`] that the agent crate implements (the
//! model, the context assembler, the tools). The conversation id of the running turn is
//! carried in a `tokio::task_local!` scope ([`scope`]) that tools read.

pub mod error;
pub mod events;
pub mod pipeline;
pub mod ports;
pub mod scope;

pub use error::PipelineError;
pub use events::{EventBus, EventSubscription, TurnEvent};
pub use pipeline::{ConversationService, PipelineSettings, SendOptions, TurnOutcome};
