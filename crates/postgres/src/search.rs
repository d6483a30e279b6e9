//! `SearchRepository` on PostgreSQL (being written).

use async_trait::async_trait;
use smallebot_core::entities::*;
use smallebot_core::ids::*;
use smallebot_core::repository::*;
use smallebot_core::time::Timestamp;

use crate::store::PgStore;

#[async_trait]
impl SearchRepository for PgStore {
    #[allow(unused_variables)]
    async fn search(&self, query: &SearchQuery) -> RepoResult<Vec<SearchHit>> {
        Err(smallebot_core::RepositoryError::Storage {
            action: "search",
            message: "not written yet".into(),
        })
    }
}
