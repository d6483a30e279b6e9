//! # smallebot-core
//!
//! The domain of SmallEBot, free of I/O: the entities stored for every conversation
//! ([`entities`]) and the columns both stores read them from ([`columns`]), their
//! time-ordered typed ids ([`ids`]), the repository traits the
//! pipeline talks to ([`repository`]), pure domain rules ([`rules`]), the
//! conversation task list ([`tasks`]) and, behind the `test-support` feature, the
//! row-by-row writes tests build timelines with (`test_support`; never in the product). The shell analyzer (command policy and
//! written-file detection) is no domain concept: it is the `smallebot-shell` crate.
//!
//! Nothing here depends on sqlx, tokio or reqwest; the infrastructure crate implements
//! the repository traits on SQLite and the application crate drives them.
//!
//! ```
//! use smallebot_core::ids::ConversationId;
//! let a = ConversationId::new();
//! let b = ConversationId::new();
//! assert!(a < b, "UUID v7 ids are time ordered");
//! ```

pub mod agents;
pub mod columns;
pub mod entities;
pub mod error;
pub mod front_matter;
pub mod ids;
pub mod refusals;
pub mod repository;
pub mod rules;
pub mod skills;
pub mod stored_row;
pub mod tasks;
#[cfg(feature = "test-support")]
pub mod test_support;
pub mod time;

pub use error::RepositoryError;
