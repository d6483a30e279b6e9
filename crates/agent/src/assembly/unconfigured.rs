//! [`UnconfiguredModel`]: the model of an agent built without an endpoint.

use async_trait::async_trait;
use smallebot_application::ports::{
    ChatModel, DeltaSink, ModelError, ModelErrorKind, ModelRequest, ModelResponse,
};

use crate::config::HOW_TO_CONFIGURE;

/// Refuses every call, saying how to configure a model. Lets storage-only work
/// (listing, deleting conversations) run through the service without an endpoint.
#[derive(Debug, Default, Clone, Copy)]
pub struct UnconfiguredModel;

#[async_trait]
impl ChatModel for UnconfiguredModel {
    async fn complete(
        &self,
        _request: &ModelRequest,
        _on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ModelError> {
        Err(ModelError::new(ModelErrorKind::Rejected, HOW_TO_CONFIGURE))
    }
}
