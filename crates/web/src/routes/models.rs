//! Models: the list a conversation may choose from, and a conversation's choice.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use smallebot_protocol::api::{ChooseModelBody, ChosenModel, ModelList};

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::state::WebState;
use smallebot_application::wire;

/// `GET /api/models`: the models a conversation may run on.
pub(crate) async fn list(UserService(service): UserService) -> Json<ModelList> {
    let models: Vec<_> = service
        .models()
        .iter()
        .map(wire::bodies::model_choice)
        .collect();
    let default = models.first().map(|m| m.id.clone());
    Json(ModelList { models, default })
}

/// `PUT /api/conversations/{id}/model`: `{"model": id | null}` chooses the model of the
/// conversation's next turns (`400` for an id not in the list).
pub(crate) async fn choose(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
    body: Result<Json<ChooseModelBody>, JsonRejection>,
) -> Result<Json<ChosenModel>, ApiError> {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let model = service
        .set_model(conversation.id, body.model.as_deref())
        .await?;
    Ok(Json(ChosenModel { model }))
}
