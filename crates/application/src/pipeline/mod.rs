//! The conversation pipeline (DESIGN.md §3).

mod active;
mod compress;
mod service;
mod settings;
mod title;
mod tool_ids;
mod tool_step;
mod turn;
mod view;

pub use compress::CompressionReport;
pub use service::{ConversationService, ServiceParts};
pub use settings::{PipelineSettings, SendOptions};
pub use title::fallback_title;
pub use turn::TurnOutcome;
