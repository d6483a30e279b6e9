//! `GET /api/conversations/{id}`: the conversation, its timeline, its turns and their
//! outcomes, the earlier versions of edited messages, the plan and the context.

use std::collections::HashMap;

use axum::Json;
use axum::extract::{Path, Query, State};
use serde::Deserialize;
use smallebot_application::ConversationService;
use smallebot_core::entities::{AnswerVersion, HistoryRow, HookRun, Message, Role};
use smallebot_core::ids::{ConversationId, MessageId, TurnId};
use smallebot_core::rules::message_versions::earlier_versions;
use smallebot_core::tasks::{CORRUPT_TASK_FILE, TaskStoreError};
use smallebot_protocol::api::{self, Timeline, TimelineRow};
use smallebot_protocol::plan::Plan;

use super::own_conversation;
use crate::auth::{CurrentUser, UserService};
use crate::error::ApiError;
use crate::markdown;
use crate::state::WebState;
use smallebot_application::wire;

/// The query string.
#[derive(Deserialize)]
pub(crate) struct TimelineParams {
    /// `false`: the last assistant message comes without `html` (the page shows it
    /// rendered already, as it streamed in); rendering a long answer again is the
    /// costliest part of the timeline.
    #[serde(default = "yes")]
    last_html: bool,
}

fn yes() -> bool {
    true
}

/// `GET /api/conversations/{id}`: the conversation and its timeline.
pub(crate) async fn timeline(
    State(state): State<WebState>,
    user: CurrentUser,
    UserService(service): UserService,
    Path(id): Path<String>,
    Query(params): Query<TimelineParams>,
) -> Result<Json<Timeline>, ApiError> {
    let conversation = own_conversation(&state, &user, &id).await?;
    let boundary = conversation.history_boundary();
    let store = state.service.store();
    let rows = store.rows_after(conversation.id, 0).await?;
    let turns = store.list_turns(conversation.id).await?;
    let undone: Vec<TurnId> = turns
        .iter()
        .filter(|t| t.undone_at.is_some())
        .map(|t| t.id)
        .collect();
    let answers = store.answer_versions(conversation.id).await?;
    let mut versions = versions_of(&rows, &answers);
    let busy = service.is_busy_anywhere(conversation.id).await?;
    let estimate = service.context_estimate(conversation.id).await?;
    let (plan, plan_error) = plan_of(&service, conversation.id).await;
    let unrendered = if params.last_html {
        None
    } else {
        rows.iter()
            .rposition(|row| matches!(row, HistoryRow::Message(m) if m.role == Role::Assistant))
    };
    let row_htmls = render_answers(&state, &rows, unrendered, &mut versions).await?;
    // One indexed query: a conversation that delegated nothing pays next to nothing.
    let sub_agents = super::sub_agents::sub_agents_of(store.as_ref(), &conversation).await?;
    let file_changes = store.file_changes(conversation.id).await?;
    let mut hooks = hooks_by_call(store.hook_runs(conversation.id).await?);
    let mut row_htmls = row_htmls.into_iter();
    Ok(Json(Timeline {
        rows: rows
            .iter()
            .enumerate()
            .map(|(index, row)| TimelineRow {
                summarized: row.seq() <= boundary,
                undone: undone.contains(&row.turn_id()),
                html: match row {
                    HistoryRow::Message(m)
                        if m.role == Role::Assistant && unrendered != Some(index) =>
                    {
                        row_htmls.next()
                    }
                    _ => None,
                },
                versions: match row {
                    HistoryRow::Message(m) => versions.remove(&m.id).unwrap_or_default(),
                    _ => Vec::new(),
                },
                hooks: match row {
                    HistoryRow::ToolCall(call) => hooks
                        .remove(&(call.turn_id, call.call_id.clone()))
                        .unwrap_or_default(),
                    _ => Vec::new(),
                },
                row: wire::bodies::row(row),
            })
            .collect(),
        model: service.model_of(&conversation),
        conversation: wire::bodies::conversation(&conversation),
        busy,
        plan,
        plan_error,
        context: api::ContextUsage {
            used: estimate.used,
            window: estimate.window,
            ratio: estimate.ratio(),
            exact: estimate.exact,
        },
        turns: turns.iter().map(wire::bodies::turn_outcome).collect(),
        sub_agents,
        file_changes: file_changes
            .iter()
            .map(wire::bodies::file_change_card)
            .collect(),
    }))
}

/// The hook runs made for tool calls, by the call's turn and id (the model's ids
/// repeat across turns), each call's in the order they ended.
fn hooks_by_call(runs: Vec<HookRun>) -> HashMap<(TurnId, String), Vec<api::HookRunCard>> {
    let mut by_call: HashMap<(TurnId, String), Vec<api::HookRunCard>> = HashMap::new();
    for run in runs {
        if let (Some(turn), Some(call)) = (run.turn_id, &run.call_id) {
            by_call
                .entry((turn, call.clone()))
                .or_default()
                .push(wire::bodies::hook_run_card(&run));
        }
    }
    by_call
}

/// The answers shown as HTML, rendered together off the async threads: each row's
/// answer (but the one at `unrendered`), in order, returned; then each earlier
/// version's, put into `versions`.
async fn render_answers(
    state: &WebState,
    rows: &[HistoryRow],
    unrendered: Option<usize>,
    versions: &mut HashMap<MessageId, Vec<api::MessageVersion>>,
) -> Result<Vec<String>, ApiError> {
    let mut texts: Vec<String> = rows
        .iter()
        .enumerate()
        .filter_map(|(index, row)| match row {
            HistoryRow::Message(m) if m.role == Role::Assistant && unrendered != Some(index) => {
                Some(m.content.clone())
            }
            _ => None,
        })
        .collect();
    let row_answers = texts.len();
    let mut version_keys: Vec<&MessageId> = versions.keys().collect();
    version_keys.sort();
    for key in &version_keys {
        texts.extend(versions[*key].iter().filter_map(|v| v.answer.clone()));
    }
    let mut htmls = state
        .renders
        .run(move |cancelled| {
            texts
                .iter()
                .map(|text| markdown::render(text, cancelled))
                .collect::<Result<Vec<String>, _>>()
        })
        .await?
        .into_iter();
    let row_htmls: Vec<String> = htmls.by_ref().take(row_answers).collect();
    let version_keys: Vec<MessageId> = version_keys.into_iter().copied().collect();
    for key in version_keys {
        if let Some(list) = versions.get_mut(&key) {
            for version in list.iter_mut().filter(|v| v.answer.is_some()) {
                version.answer_html = htmls.next();
            }
        }
    }
    Ok(row_htmls)
}

/// The earlier versions of each current user message's exchange, oldest first: each
/// message it replaced with the answers that message got, then the answers a
/// regeneration replaced of its own; a replaced message whose turn had no answer is a
/// version without one. Their HTML is left to the caller.
fn versions_of(
    rows: &[HistoryRow],
    answers: &[AnswerVersion],
) -> HashMap<MessageId, Vec<api::MessageVersion>> {
    let messages: HashMap<MessageId, &Message> = rows
        .iter()
        .filter_map(|row| match row {
            HistoryRow::Message(m) => Some((m.id, m)),
            _ => None,
        })
        .collect();
    let chains = earlier_versions(messages.values().copied());
    let version = |m: &Message, answer: Option<&str>| api::MessageVersion {
        id: m.id.to_string(),
        content: m.content.clone(),
        created_at: wire::time(m.created_at),
        answer: answer.map(str::to_owned),
        // Rendered with the rows' answers.
        answer_html: None,
    };
    messages
        .values()
        .filter(|m| m.role == Role::User && m.replaced_by.is_none())
        .filter_map(|current| {
            let chain = chains.get(&current.id).map_or(&[][..], Vec::as_slice);
            let mut versions = Vec::new();
            for older in chain.iter().filter_map(|id| messages.get(id)) {
                let given: Vec<_> = answers
                    .iter()
                    .filter(|a| a.message_id == older.id)
                    .collect();
                if given.is_empty() {
                    versions.push(version(older, None));
                }
                versions.extend(given.iter().map(|a| version(older, Some(&a.content))));
            }
            versions.extend(
                answers
                    .iter()
                    .filter(|a| a.message_id == current.id)
                    .map(|a| version(current, Some(&a.content))),
            );
            (!versions.is_empty()).then_some((current.id, versions))
        })
        .collect()
}

/// The conversation's plan, when it has tasks; or why its task list cannot be read.
async fn plan_of(
    service: &ConversationService,
    conversation_id: ConversationId,
) -> (Option<Plan>, Option<String>) {
    let Some(plan) = service.plan() else {
        return (None, None);
    };
    match plan.task_list(conversation_id).await {
        Ok(list) if list.tasks.is_empty() => (None, None),
        Ok(list) => (Some(wire::plan::plan(&list)), None),
        // Said where the plan is shown, not hidden as "no tasks".
        Err(error @ (TaskStoreError::Corrupt { .. } | TaskStoreError::CorruptRecord { .. })) => {
            (None, Some(format!("{CORRUPT_TASK_FILE} {error}")))
        }
        Err(error) => {
            tracing::warn!(%conversation_id, %error, "cannot read the task list");
            (None, None)
        }
    }
}
