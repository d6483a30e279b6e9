//! Models: the list a conversation may choose from, and a conversation's choice.

use axum::Json;
use axum::extract::rejection::JsonRejection;
use axum::extract::{Path, State};
use serde::{Deserialize, Serialize};
use smallebot_application::ports::ModelChoice;

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::state::WebState;

/// The body of `GET /api/models`.
#[derive(Serialize)]
pub(crate) struct ModelList {
    /// The models of models.json (with their API key available), the default first;
    /// empty when only one unnamed model is configured.
    models: Vec<ModelChoice>,
    /// The id of the default model, if the list has one.
    default: Option<String>,
}

/// `GET /api/models`: the models a conversation may run on.
pub(crate) async fn list(UserService(service): UserService) -> Json<ModelList> {
    let models = service.models().to_vec();
    let default = models.first().map(|m| m.id.clone());
    Json(ModelList { models, default })
}

/// The body of `PUT /api/conversations/{id}/model`.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct ChooseBody {
    /// A model id from `GET /api/models`; `null` for the default.
    model: Option<String>,
}

/// The answer of `PUT /api/conversations/{id}/model`.
#[derive(Serialize)]
pub(crate) struct Chosen {
    /// The model the conversation runs on from its next turn.
    model: Option<String>,
}

/// `PUT /api/conversations/{id}/model`: `{"model": id | null}` chooses the model of the
/// conversation's next turns (`400` for an id not in the list).
pub(crate) async fn choose(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
    body: Result<Json<ChooseBody>, JsonRejection>,
) -> Result<Json<Chosen>, ApiError> {
    let Json(body) = body?;
    let conversation = own_conversation(&state, &user, &id).await?;
    let model = service
        .set_model(conversation.id, body.model.as_deref())
        .await?;
    Ok(Json(Chosen { model }))
}
