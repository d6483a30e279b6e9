//! The series measured from spans (`spans.rs`) and their labels.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::histogram::Histogram;
use prometheus_client::registry::Registry;

use crate::series::{fine_buckets, register, seconds_buckets};

/// A model request's model, purpose and outcome.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelRequestLabels {
    /// The model's name as sent (models.json and the environment name a bounded set).
    pub model: String,
    /// `chat`, `title` or `summary`.
    pub purpose: String,
    /// `ok`, or the failure's kind (`rate_limited`, `timeout`, …).
    pub outcome: String,
}

/// A model's name.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ModelLabels {
    /// The model's name as sent.
    pub model: String,
}

/// Tokens of a model by kind.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TokenLabels {
    /// The model's name as sent.
    pub model: String,
    /// `input`, `output` or `cached_input` (part of `input`).
    pub kind: &'static str,
}

/// A turn's model and outcome.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TurnModelLabels {
    /// The model its last request went to (`none`: it made no request).
    pub model: String,
    /// `completed`, `cancelled` or `failed`.
    pub outcome: String,
}

/// A store operation.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct StoreLabels {
    /// What the store did (`read` operations by name, `write` for the writer's).
    pub operation: String,
}

/// The series the spans fill.
#[derive(Debug)]
pub struct SpanSeries {
    /// Model requests ended, by model, purpose and outcome.
    pub model_requests: Family<ModelRequestLabels, Counter>,
    /// A model request's wall time (every attempt), by model.
    pub model_request_seconds: Family<ModelLabels, Histogram>,
    /// Time from sending a model request to its first streamed piece, by model.
    pub model_first_token_seconds: Family<ModelLabels, Histogram>,
    /// Tokens the providers reported, by model and kind.
    pub model_tokens: Family<TokenLabels, Counter>,
    /// A store operation's wall time, by operation.
    pub store_seconds: Family<StoreLabels, Histogram>,
    /// A turn's time on the host: its wall time less what its model requests and tool
    /// calls covered.
    pub turn_overhead_seconds: Histogram,
    /// Turns ended, by the model they ran on and outcome.
    pub turns_by_model: Family<TurnModelLabels, Counter>,
}

impl SpanSeries {
    /// The series, registered in `registry`.
    pub(crate) fn register(registry: &mut Registry) -> Self {
        let model_requests = register(
            registry,
            "model_requests",
            "Model requests ended, by model, purpose and outcome",
            Family::<ModelRequestLabels, Counter>::default(),
        );
        let model_request_seconds = register(
            registry,
            "model_request_duration_seconds",
            "Wall time of a model request with all its attempts, by model",
            Family::<ModelLabels, Histogram>::new_with_constructor(|| {
                Histogram::new(seconds_buckets())
            }),
        );
        let model_first_token_seconds = register(
            registry,
            "model_time_to_first_token_seconds",
            "Time from sending a model request to its first streamed piece, by model",
            Family::<ModelLabels, Histogram>::new_with_constructor(|| {
                Histogram::new(seconds_buckets())
            }),
        );
        let model_tokens = register(
            registry,
            "model_tokens",
            "Tokens the model servers reported, by model and kind",
            Family::<TokenLabels, Counter>::default(),
        );
        let store_seconds = register(
            registry,
            "store_operation_duration_seconds",
            "Wall time of a store operation, by operation",
            Family::<StoreLabels, Histogram>::new_with_constructor(|| {
                Histogram::new(fine_buckets())
            }),
        );
        let turn_overhead_seconds = register(
            registry,
            "turn_host_overhead_seconds",
            "A turn's time on the host: its wall time less its model requests and tool calls",
            Histogram::new(fine_buckets()),
        );
        let turns_by_model = register(
            registry,
            "turns_by_model",
            "Turns ended, by the model of their last request and outcome",
            Family::<TurnModelLabels, Counter>::default(),
        );
        Self {
            turns_by_model,
            model_requests,
            model_request_seconds,
            model_first_token_seconds,
            model_tokens,
            store_seconds,
            turn_overhead_seconds,
        }
    }
}
