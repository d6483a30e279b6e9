//! `ConversationRepository` on SQLite.

use async_trait::async_trait;
use smallebot_core::entities::{CompressionUpdate, Conversation, SubAgentLink, SubAgentRun};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{ConversationRepository, RepoResult};
use smallebot_core::{conversation_columns, sub_agent_runs_select};

use crate::database::SqliteStore;
use crate::queries;
use crate::rows;
use crate::time::now;
use crate::write::{ConversationWrite, Write};

impl SqliteStore {
    /// Stores `conversation` as it is (a new one, perhaps a sub-agent's).
    async fn create(&self, conversation: Conversation) -> RepoResult<Conversation> {
        let stored = conversation.clone();
        self.writer()
            .run(|reply| {
                Write::Conversation(ConversationWrite::Create {
                    conversation: stored,
                    reply,
                })
            })
            .await?;
        Ok(conversation)
    }
}

#[async_trait]
impl ConversationRepository for SqliteStore {
    async fn create_conversation(&self, user_name: &str, title: &str) -> RepoResult<Conversation> {
        let (at, _) = now();
        self.create(Conversation::new(user_name, title, at)).await
    }

    async fn create_sub_conversation(
        &self,
        user_name: &str,
        title: &str,
        link: SubAgentLink,
    ) -> RepoResult<Conversation> {
        let (at, _) = now();
        self.create(Conversation::new(user_name, title, at).with_parent(link))
            .await
    }

    async fn list_conversations(&self, user_name: Option<&str>) -> RepoResult<Vec<Conversation>> {
        let user_name = user_name.map(str::to_owned);
        self.readers()
            .read("listing conversations", move |conn| {
                queries::all(
                    conn,
                    "listing conversations",
                    concat!(
                        "SELECT ",
                        conversation_columns!(),
                        " FROM conversations WHERE ?1 IS NULL OR user_name = ?1 \
                         ORDER BY updated_at DESC, id DESC"
                    ),
                    [user_name.as_deref()],
                    rows::conversation,
                )
            })
            .await
    }

    async fn sub_agent_runs(&self, parent: ConversationId) -> RepoResult<Vec<SubAgentRun>> {
        self.readers()
            .read("reading a conversation's sub-agents", move |conn| {
                queries::all(
                    conn,
                    "reading a conversation's sub-agents",
                    concat!(
                        sub_agent_runs_select!(),
                        "WHERE parent_conversation_id = ?1 ORDER BY created_at, id"
                    ),
                    [parent.to_string()],
                    rows::sub_agent_run,
                )
            })
            .await
    }

    async fn get_conversation(&self, id: ConversationId) -> RepoResult<Option<Conversation>> {
        self.readers()
            .read("reading a conversation", move |conn| {
                queries::conversation(conn, id)
            })
            .await
    }

    async fn rename_conversation(&self, id: ConversationId, title: &str) -> RepoResult<()> {
        let title = title.to_owned();
        self.writer()
            .run(|reply| Write::Conversation(ConversationWrite::Rename { id, title, reply }))
            .await
    }

    async fn set_conversation_model(
        &self,
        id: ConversationId,
        model: Option<&str>,
    ) -> RepoResult<()> {
        let model = model.map(str::to_owned);
        self.writer()
            .run(|reply| Write::Conversation(ConversationWrite::SetModel { id, model, reply }))
            .await
    }

    async fn delete_conversation(&self, id: ConversationId) -> RepoResult<bool> {
        let (existed, digests) = self
            .writer()
            .run(|reply| Write::Conversation(ConversationWrite::Delete { id, reply }))
            .await?;
        self.sweep_contents(digests).await;
        Ok(existed)
    }

    async fn set_compression(
        &self,
        id: ConversationId,
        update: &CompressionUpdate,
    ) -> RepoResult<Conversation> {
        let update = update.clone();
        self.writer()
            .run(|reply| {
                Write::Conversation(ConversationWrite::SetCompression { id, update, reply })
            })
            .await
    }
}
