//! The series and their names.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

use crate::span_series::SpanSeries;
use crate::usage_series::UsageSeries;

/// A turn's outcome.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct OutcomeLabels {
    /// `completed`, `cancelled` or `failed`.
    pub outcome: &'static str,
}

/// A tool call's tool and outcome.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ToolLabels {
    /// The tool's name.
    pub tool: String,
    /// `ok`, `error`, `denied`, `cancelled`, `interrupted`.
    pub outcome: &'static str,
}

/// A tool's name.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ToolNameLabels {
    /// The tool's name.
    pub tool: String,
}

/// A sub-agent's agent and outcome.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct SubAgentLabels {
    /// The agent definition's name (files people write: a bounded set).
    pub agent: String,
    /// `completed`, `failed` or `cancelled`.
    pub outcome: &'static str,
}

/// A compression's trigger and outcome.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CompressionLabels {
    /// `before_turn`, `mid_turn`, `overflow` or `manual`.
    pub trigger: &'static str,
    /// `ok` or `failed`.
    pub outcome: &'static str,
}

/// Why a model request was sent again.
#[derive(Debug, Clone, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RetryLabels {
    /// The model client's words for it (`rate limited (429)`, `stream stalled`, …).
    pub cause: String,
}

/// Every series of the process, registered under `smallebot_`.
#[derive(Debug)]
pub struct Series {
    registry: Registry,
    /// Turns ended, by outcome.
    pub turns: Family<OutcomeLabels, Counter>,
    /// Turns running now.
    pub active_turns: Gauge,
    /// A turn's wall time, from its start to its end.
    pub turn_seconds: Histogram,
    /// Tool calls ended, by tool and outcome.
    pub tool_calls: Family<ToolLabels, Counter>,
    /// A tool call's wall time, by tool.
    pub tool_call_seconds: Family<ToolNameLabels, Histogram>,
    /// Model requests sent again after a failure, by cause.
    pub model_retries: Family<RetryLabels, Counter>,
    /// Sub-agents ended, by agent and outcome.
    pub sub_agents: Family<SubAgentLabels, Counter>,
    /// Sub-agents working now.
    pub active_sub_agents: Gauge,
    /// Compressions ended, by trigger and outcome.
    pub compressions: Family<CompressionLabels, Counter>,
    /// Event-stream (SSE) subscribers connected now.
    pub sse_subscribers: Gauge,
    /// What the spans measure.
    pub spans: SpanSeries,
    /// Tokens and cost from the usage records.
    pub usage: UsageSeries,
}

/// Buckets from 5 ms to about 10 minutes: tool calls and turns both fit.
pub(crate) fn seconds_buckets() -> impl Iterator<Item = f64> {
    exponential_buckets(0.005, 2.0, 18)
}

/// Registers `metric` under `name` with `help`, and gives it back.
pub(crate) fn register<M>(registry: &mut Registry, name: &str, help: &str, metric: M) -> M
where
    M: prometheus_client::registry::Metric + Clone,
{
    registry.register(name, help, metric.clone());
    metric
}

/// Buckets from 20 µs to about 5 s: store operations and a turn's host time.
pub(crate) fn fine_buckets() -> impl Iterator<Item = f64> {
    exponential_buckets(0.000_02, 2.0, 18)
}

impl Default for Series {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("smallebot");
        let turns = register(
            &mut registry,
            "turns",
            "Turns ended, by outcome",
            Family::<OutcomeLabels, Counter>::default(),
        );
        let active_turns = register(
            &mut registry,
            "active_turns",
            "Turns running now",
            Gauge::default(),
        );
        let turn_seconds = register(
            &mut registry,
            "turn_duration_seconds",
            "Wall time of a turn, from its start to its end",
            Histogram::new(seconds_buckets()),
        );
        let tool_calls = register(
            &mut registry,
            "tool_calls",
            "Tool calls ended, by tool and outcome",
            Family::<ToolLabels, Counter>::default(),
        );
        let tool_call_seconds = register(
            &mut registry,
            "tool_call_duration_seconds",
            "Wall time of a tool call, by tool",
            Family::<ToolNameLabels, Histogram>::new_with_constructor(|| {
                Histogram::new(seconds_buckets())
            }),
        );
        let model_retries = register(
            &mut registry,
            "model_retries",
            "Model requests sent again after a failed attempt, by cause",
            Family::<RetryLabels, Counter>::default(),
        );
        let sub_agents = register(
            &mut registry,
            "sub_agents",
            "Sub-agents ended, by agent and outcome",
            Family::<SubAgentLabels, Counter>::default(),
        );
        let active_sub_agents = register(
            &mut registry,
            "active_sub_agents",
            "Sub-agents working now",
            Gauge::default(),
        );
        let compressions = register(
            &mut registry,
            "compressions",
            "Context compressions ended, by trigger and outcome",
            Family::<CompressionLabels, Counter>::default(),
        );
        let sse_subscribers = register(
            &mut registry,
            "sse_subscribers",
            "Event-stream subscribers connected now",
            Gauge::default(),
        );
        let spans = SpanSeries::register(&mut registry);
        let usage = UsageSeries::register(&mut registry);
        Self {
            registry,
            turns,
            active_turns,
            turn_seconds,
            tool_calls,
            tool_call_seconds,
            model_retries,
            sub_agents,
            active_sub_agents,
            compressions,
            sse_subscribers,
            spans,
            usage,
        }
    }
}

impl Series {
    /// Every series in the text format.
    #[must_use]
    pub fn render(&self) -> String {
        let mut text = String::new();
        // Writing into a String cannot fail.
        let _ = prometheus_client::encoding::text::encode(&mut text, &self.registry);
        text
    }
}
