//! The test-support writes on PostgreSQL (`RowFixtures`: a bare turn, a single
//! message), behind the `test-support` feature.

use async_trait::async_trait;
use smallebot_core::entities::{Message, NewMessage, Turn};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::RepoResult;
use smallebot_core::test_support::RowFixtures;

use crate::store::PgStore;
use crate::write::Edit;

#[async_trait]
impl RowFixtures for PgStore {
    async fn start_turn(
        &self,
        conversation_id: ConversationId,
        thinking_mode: bool,
    ) -> RepoResult<Turn> {
        self.edit("starting a turn", |reply| {
            Edit::FixtureTurn(conversation_id, thinking_mode, reply)
        })
        .await
    }

    async fn append_message(&self, message: &NewMessage) -> RepoResult<Message> {
        let message = message.clone();
        self.edit("appending a message", |reply| {
            Edit::FixtureMessage(message, reply)
        })
        .await
    }
}
