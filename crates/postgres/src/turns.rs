//! `TurnRepository` on PostgreSQL (being written).

use async_trait::async_trait;
use smallebot_core::entities::*;
use smallebot_core::ids::*;
use smallebot_core::repository::*;
use smallebot_core::time::Timestamp;

use crate::store::PgStore;

#[async_trait]
impl TurnRepository for PgStore {
    #[allow(unused_variables)]
    async fn start_turn(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
    ) -> RepoResult<Turn> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn start_turn_with_message(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
        content: &str,
        token_count: i64,
        owner: &LeaseOwner,
    ) -> RepoResult<(Turn, Message)> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn heartbeat(&self, turn_id: TurnId, at: Timestamp) -> RepoResult<bool> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn running_turns(&self) -> RepoResult<Vec<Turn>> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn running_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn interrupt_turn(&self, turn_id: TurnId) -> RepoResult<bool> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn finish_turn(
        &self,
        turn_id: TurnId,
        status: TurnStatus,
        error: Option<&str>,
    ) -> RepoResult<Turn> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn record_step(&self, step: &NewStep) -> RepoResult<RecordedStep> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn get_turn(&self, turn_id: TurnId) -> RepoResult<Option<Turn>> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn list_turns(&self, conversation_id: ConversationId) -> RepoResult<Vec<Turn>> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn edit_user_message(
        &self,
        message_id: MessageId,
        new_content: &str,
        token_count: i64,
        owner: &LeaseOwner,
    ) -> RepoResult<(Turn, Message)> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn reset_turn_for_regeneration(
        &self,
        turn_id: TurnId,
        owner: &LeaseOwner,
    ) -> RepoResult<(Turn, Message)> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }

    #[allow(unused_variables)]
    async fn undo_last_turn(&self, conversation_id: ConversationId) -> RepoResult<Option<Turn>> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "turns",
            message: "not written yet".into(),
        })
    }
}
