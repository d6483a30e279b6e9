//! The conversation pipeline (docs/design.md §3).
//!
//! - [`ConversationService`] (`service.rs`) orchestrates: busy check, estimate, store
//!   the turn, run it, titles, edit, regenerate, manual compression, delete.
//! - `turn.rs` + `tool_step.rs`: one running turn (`TurnRun`), the tool loop;
//!   `file_changes.rs`: the workspace compared around a step's calls (checkpoints).
//! - `compressor.rs`: the `Compressor`, context compression and its report.
//! - `context.rs`: the `PipelineContext` the turn and the compressor are given (the
//!   ports, settings and the event bus) — they never see the service.
//! - `view.rs`: the turn's in-memory view of its conversation.
//! - `attachments.rs`: the contents and token counts of the attachments messages carry.
//! - `tool_offer.rs`: which tools a request carries (all, or some loaded on demand).
//!
//! Imports run one way: `service → {turn, tool_step, compressor} → {view, context}`.

mod active;
mod attachments;
mod compressor;
mod context;
mod file_changes;
mod hooks;
mod lease;
mod model_step;
mod service;
mod settings;
mod step;
mod title;
mod tool_ids;
mod tool_offer;
mod tool_step;
mod turn;
mod turn_end;
mod view;

pub use active::ActiveTurns;
pub use compressor::{CompressionReport, CompressionSkipped};
pub use lease::LeaseSettings;
pub use service::shutdown;
pub use service::{
    ConversationService, NEW_CONVERSATION_TITLE, SWEEP_EVERY, ServedSessions, ServiceParts,
    TurnHandle, UPLOAD_SWEEP_TICKS,
};
pub use settings::{PipelineSettings, SendOptions};
pub use title::{TITLE_INSTRUCTION, TITLE_MAX_TOKENS, fallback_title};
pub use turn::TurnOutcome;
