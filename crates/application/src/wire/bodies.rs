//! JSON bodies to the wire: conversations, timeline rows, search hits, models, reports.

use crate::pipeline::CompressionReport;
use crate::ports::ModelChoice;
use smallebot_core::entities::{self, HistoryRow, SearchHitKind, TurnStatus};
use smallebot_core::rules::snippet::snippet;
use smallebot_protocol::api;

use super::plan::tool_status;
use super::time;

/// A conversation as the API shows it.
pub fn conversation(c: &entities::Conversation) -> api::Conversation {
    api::Conversation {
        id: c.id.to_string(),
        user_name: c.user_name.clone(),
        title: c.title.clone(),
        created_at: time(c.created_at),
        updated_at: time(c.updated_at),
        compressed_context: c.compressed_context.clone(),
        compressed_at: c.compressed_at.map(time),
        compressed_through_seq: c.compressed_through_seq,
    }
}

/// A stored row as the timeline shows it.
pub fn row(row: &HistoryRow) -> api::Row {
    match row {
        HistoryRow::Message(m) => api::Row::Message(api::MessageRow {
            id: m.id.to_string(),
            conversation_id: m.conversation_id.to_string(),
            turn_id: m.turn_id.to_string(),
            seq: m.seq,
            role: match m.role {
                entities::Role::User => api::Role::User,
                entities::Role::Assistant => api::Role::Assistant,
            },
            content: m.content.clone(),
            token_count: m.token_count,
            created_at: time(m.created_at),
            replaced_by: m.replaced_by.map(|id| id.to_string()),
            is_edited: m.is_edited,
            attachments: m.attachments.iter().map(attachment).collect(),
        }),
        HistoryRow::ToolCall(t) => api::Row::ToolCall(api::ToolCallRow {
            id: t.id.to_string(),
            conversation_id: t.conversation_id.to_string(),
            turn_id: t.turn_id.to_string(),
            seq: t.seq,
            call_id: t.call_id.clone(),
            tool_name: t.tool_name.clone(),
            arguments: t.arguments.clone(),
            result: t.result.clone(),
            status: tool_status(t.status),
            token_count: t.token_count,
            started_at: time(t.started_at),
            completed_at: t.completed_at.map(time),
        }),
        HistoryRow::ThinkBlock(b) => api::Row::ThinkBlock(api::ThinkBlockRow {
            id: b.id.to_string(),
            conversation_id: b.conversation_id.to_string(),
            turn_id: b.turn_id.to_string(),
            seq: b.seq,
            content: b.content.clone(),
            created_at: time(b.created_at),
        }),
    }
}

/// One file a turn (or a rewind) changed, as the timeline carries it.
#[must_use]
pub fn file_change_card(change: &entities::TurnFileChange) -> api::FileChangeCard {
    api::FileChangeCard {
        turn_id: change.turn_id.to_string(),
        path: change.change.path.clone(),
        from: change.change.from.clone(),
        kind: change.change.kind.as_str().to_owned(),
        size_before: change.change.before.as_ref().map(|state| state.size),
        size_after: change.change.after.as_ref().map(|state| state.size),
        not_captured: change.not_captured.clone(),
        rewind: change.rewind.clone(),
    }
}

/// A hook's run for a tool call, as the tool's card shows it.
pub fn hook_run_card(run: &entities::HookRun) -> api::HookRunCard {
    api::HookRunCard {
        event: run.event.clone(),
        command: run.command.clone(),
        exit_code: run.exit_code,
        duration_ms: run.duration_ms,
        decision: run.decision.clone(),
    }
}

/// What became of an MCP server's question during a call, for its card.
pub fn elicitation_card(
    outcome: &smallebot_core::rules::elicitation::ElicitationOutcome,
) -> api::ElicitationCard {
    api::ElicitationCard {
        server: outcome.server.clone(),
        message: outcome.message.clone(),
        action: serde_json::to_value(outcome.action)
            .ok()
            .and_then(|v| v.as_str().map(str::to_owned))
            .unwrap_or_default(),
        content: outcome.content.clone(),
    }
}

/// A turn and how it ended.
pub fn turn_outcome(turn: &entities::Turn) -> api::TurnOutcome {
    api::TurnOutcome {
        id: turn.id.to_string(),
        seq: turn.seq,
        status: match turn.status {
            TurnStatus::Running => api::TurnStatus::Running,
            TurnStatus::Completed => api::TurnStatus::Completed,
            TurnStatus::Failed => api::TurnStatus::Failed,
            TurnStatus::Cancelled => api::TurnStatus::Cancelled,
            TurnStatus::Interrupted => api::TurnStatus::Interrupted,
            _ => api::TurnStatus::Unknown,
        },
        error: turn.error.clone(),
        created_at: time(turn.created_at),
        completed_at: turn.completed_at.map(time),
        undone: turn.undone_at.is_some(),
        cut: turn.cut.map(answer_cut),
    }
}

/// Why an answer was cut, on the wire.
#[must_use]
pub fn answer_cut(cut: entities::AnswerCut) -> api::AnswerCut {
    use api::AnswerCut as W;
    use entities::AnswerCut as Cut;
    match cut {
        Cut::OutputLimit => W::OutputLimit,
        Cut::ContextFull => W::ContextFull,
        _ => W::Unknown,
    }
}

/// A conversation exported whole.
pub fn export(export: &entities::ConversationExport) -> api::ConversationExport {
    api::ConversationExport {
        conversation: conversation(&export.conversation),
        turns: export.turns.iter().map(turn_outcome).collect(),
        rows: export.rows.iter().map(row).collect(),
        answer_versions: export
            .answer_versions
            .iter()
            .map(|a| api::ReplacedAnswer {
                message_id: a.message_id.to_string(),
                turn_id: a.turn_id.to_string(),
                content: a.content.clone(),
                created_at: time(a.created_at),
            })
            .collect(),
    }
}

/// A search match for the search `query` as the API shows it, with its snippet.
pub fn search_hit(hit: &entities::SearchHit, query: &str) -> api::SearchHit {
    api::SearchHit {
        conversation_id: hit.conversation_id.to_string(),
        conversation_title: hit.conversation_title.clone(),
        seq: hit.seq,
        kind: match hit.kind {
            SearchHitKind::User => api::SearchHitKind::User,
            SearchHitKind::Assistant => api::SearchHitKind::Assistant,
            SearchHitKind::ToolCall => api::SearchHitKind::ToolCall,
            SearchHitKind::ToolResult => api::SearchHitKind::ToolResult,
            SearchHitKind::Attachment => api::SearchHitKind::Attachment,
            _ => api::SearchHitKind::Unknown,
        },
        text: hit.text.clone(),
        snippet: snippet(&hit.text, query)
            .into_iter()
            .map(|part| api::SnippetPart {
                text: part.text,
                marked: part.marked,
            })
            .collect(),
        created_at: time(hit.created_at),
    }
}

/// A model of the list.
pub fn model_choice(choice: &ModelChoice) -> api::ModelChoice {
    api::ModelChoice {
        id: choice.id.clone(),
        model: choice.model.clone(),
        context_window: choice.context_window,
    }
}

/// What a compaction did.
pub fn compact_report(report: &CompressionReport) -> api::CompactReport {
    api::CompactReport {
        ok: report.ok,
        detail: report.detail.clone(),
        tokens_before: report.tokens_before,
        tokens_after: report.tokens_after,
    }
}

/// A stored attachment as the API answers it.
pub fn attachment(a: &entities::Attachment) -> smallebot_protocol::attachments::Attachment {
    use smallebot_protocol::attachments::{Attachment, AttachmentKind};
    Attachment {
        id: a.id.to_string(),
        conversation_id: a.conversation_id.to_string(),
        name: a.name.clone(),
        media_type: a.media_type.clone(),
        kind: match a.kind {
            entities::AttachmentKind::Image => AttachmentKind::Image,
            entities::AttachmentKind::Text => AttachmentKind::Text,
            entities::AttachmentKind::File => AttachmentKind::File,
        },
        size: a.size,
        width: a.image_size.map(|s| s.width),
        height: a.image_size.map(|s| s.height),
    }
}
