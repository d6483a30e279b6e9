//! `ConversationRepository` on PostgreSQL.

use async_trait::async_trait;
use smallebot_core::entities::{CompressionUpdate, Conversation, SubAgentLink, SubAgentRun};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{ConversationRepository, RepoResult};
use smallebot_core::{conversation_columns, sub_agent_runs_select};

use crate::fetch::fetch_conversation;
use crate::rows;
use crate::store::PgStore;
use crate::tx::{now, storage};
use crate::write::{ConversationEdit, Edit};

impl PgStore {
    /// Stores `conversation` as it is (a new one, perhaps a sub-agent's).
    async fn create(&self, conversation: Conversation) -> RepoResult<Conversation> {
        self.edit("creating a conversation", |reply| {
            Edit::Conversation(ConversationEdit::Create(conversation, reply))
        })
        .await
    }
}

#[async_trait]
impl ConversationRepository for PgStore {
    async fn create_conversation(&self, user_name: &str, title: &str) -> RepoResult<Conversation> {
        self.create(Conversation::new(user_name, title, now()))
            .await
    }

    async fn create_sub_conversation(
        &self,
        user_name: &str,
        title: &str,
        link: SubAgentLink,
    ) -> RepoResult<Conversation> {
        self.create(Conversation::new(user_name, title, now()).with_parent(link))
            .await
    }

    async fn list_conversations(&self, user_name: Option<&str>) -> RepoResult<Vec<Conversation>> {
        let found = sqlx::query(concat!(
            "SELECT ",
            conversation_columns!(),
            " FROM conversations \
             WHERE $1::text IS NULL OR user_name = $1 ORDER BY updated_at DESC, id DESC"
        ))
        .bind(user_name)
        .fetch_all(self.pool())
        .await
        .map_err(storage("listing conversations"))?;
        found.iter().map(rows::conversation).collect()
    }

    async fn sub_agent_runs(&self, parent: ConversationId) -> RepoResult<Vec<SubAgentRun>> {
        let mut conn = self
            .reader()
            .acquire()
            .await
            .map_err(storage("reading a conversation's sub-agents"))?;
        let found = sqlx::query(concat!(
            sub_agent_runs_select!(),
            "WHERE parent_conversation_id = $1 ORDER BY created_at, id"
        ))
        .bind(parent.to_string())
        .fetch_all(&mut *conn)
        .await
        .map_err(storage("reading a conversation's sub-agents"))?;
        conn.keep();
        found.iter().map(rows::sub_agent_run).collect()
    }

    async fn get_conversation(&self, id: ConversationId) -> RepoResult<Option<Conversation>> {
        let mut conn = self
            .reader()
            .acquire()
            .await
            .map_err(storage("reading a conversation"))?;
        let found = fetch_conversation(&mut conn, id).await?;
        conn.keep();
        Ok(found)
    }

    async fn rename_conversation(&self, id: ConversationId, title: &str) -> RepoResult<()> {
        let title = title.to_owned();
        self.edit("renaming a conversation", |reply| {
            Edit::Conversation(ConversationEdit::Rename(id, title, reply))
        })
        .await
    }

    async fn set_conversation_model(
        &self,
        id: ConversationId,
        model: Option<&str>,
    ) -> RepoResult<()> {
        let model = model.map(str::to_owned);
        self.edit("choosing a conversation's model", |reply| {
            Edit::Conversation(ConversationEdit::SetModel(id, model, reply))
        })
        .await
    }

    async fn delete_conversation(&self, id: ConversationId) -> RepoResult<bool> {
        self.edit("deleting a conversation", |reply| {
            Edit::Conversation(ConversationEdit::Delete(id, reply))
        })
        .await
    }

    async fn set_compression(
        &self,
        id: ConversationId,
        update: &CompressionUpdate,
    ) -> RepoResult<Conversation> {
        let update = update.clone();
        self.edit("compressing a conversation", |reply| {
            Edit::Conversation(ConversationEdit::SetCompression(id, update, reply))
        })
        .await
    }
}
