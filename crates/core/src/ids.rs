//! Typed, time-ordered (UUID v7) identifiers for every entity.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};
use uuid::Uuid;

/// An id string that is not a valid UUID.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "'{}' is not a valid id: expected a UUID such as 0190f3a2-7c1e-7b3a-9d2f-4c5e6a7b8c9d",
    crate::rules::terminal_text::escape_line(.input)
)]
pub struct InvalidId {
    /// The text that failed to parse.
    pub input: String,
}

macro_rules! typed_id {
    ($(#[$meta:meta])* $name:ident) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(Uuid);

        impl $name {
            /// A new, time-ordered (UUID v7) id.
            #[must_use]
            pub fn new() -> Self {
                Self(Uuid::now_v7())
            }

            /// Wraps an existing UUID.
            #[must_use]
            pub const fn from_uuid(uuid: Uuid) -> Self {
                Self(uuid)
            }

            /// The underlying UUID.
            #[must_use]
            pub const fn as_uuid(&self) -> Uuid {
                self.0
            }

            /// The id as 32 lowercase hex characters without dashes.
            #[must_use]
            pub fn simple(&self) -> String {
                self.0.simple().to_string()
            }
        }

        impl Default for $name {
            fn default() -> Self {
                Self::new()
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(&self.0.hyphenated(), f)
            }
        }

        impl FromStr for $name {
            type Err = InvalidId;
            fn from_str(s: &str) -> Result<Self, Self::Err> {
                Uuid::parse_str(s.trim())
                    .map(Self)
                    .map_err(|_| InvalidId { input: s.to_owned() })
            }
        }
    };
}

typed_id!(
    /// Identifies a conversation.
    ConversationId
);
typed_id!(
    /// Identifies one turn (a user message and everything the agent did for it).
    TurnId
);
typed_id!(
    /// Identifies a stored user or assistant message.
    MessageId
);
typed_id!(
    /// Identifies a stored tool call row (not the model's `call_id`).
    ToolCallId
);
typed_id!(
    /// Identifies a stored reasoning block.
    ThinkBlockId
);
typed_id!(
    /// Identifies a stored attachment: one file given with one user message.
    AttachmentId
);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_round_trip_through_text() {
        let id = ConversationId::new();
        let parsed: ConversationId = id.to_string().parse().unwrap();
        assert_eq!(parsed, id);
        let simple: ConversationId = id.simple().parse().unwrap();
        assert_eq!(simple, id);
        assert_eq!(id.simple().len(), 32);
    }

    #[test]
    fn invalid_id_names_the_input() {
        let err = "not-an-id".parse::<TurnId>().unwrap_err();
        assert!(err.to_string().contains("'not-an-id'"));
        // Control characters are shown, not obeyed, and the echo stays on its line.
        let err = "abc\x1b[2J\nerror: fake".parse::<TurnId>().unwrap_err();
        assert!(
            err.to_string()
                .starts_with("'abc^[[2J^Jerror: fake' is not a valid id"),
            "{err}"
        );
        assert_eq!(err.input, "abc\x1b[2J\nerror: fake", "kept as given");
    }

    #[test]
    fn ids_are_time_ordered() {
        let ids: Vec<MessageId> = (0..50).map(|_| MessageId::new()).collect();
        let mut sorted = ids.clone();
        sorted.sort();
        assert_eq!(ids, sorted);
    }
}
