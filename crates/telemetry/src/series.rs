//! The series and their names.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

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
    /// Model requests sent again after a failure.
    pub model_retries: Counter,
    /// Sub-agents ended, by agent and outcome.
    pub sub_agents: Family<SubAgentLabels, Counter>,
    /// Sub-agents working now.
    pub active_sub_agents: Gauge,
    /// Compressions ended, by trigger and outcome.
    pub compressions: Family<CompressionLabels, Counter>,
    /// Event-stream (SSE) subscribers connected now.
    pub sse_subscribers: Gauge,
}

/// Buckets from 5 ms to about 10 minutes: tool calls and turns both fit.
fn seconds_buckets() -> impl Iterator<Item = f64> {
    exponential_buckets(0.005, 2.0, 18)
}

impl Default for Series {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("smallebot");
        let turns = Family::<OutcomeLabels, Counter>::default();
        registry.register("turns", "Turns ended, by outcome", turns.clone());
        let active_turns = Gauge::default();
        registry.register("active_turns", "Turns running now", active_turns.clone());
        let turn_seconds = Histogram::new(seconds_buckets());
        registry.register(
            "turn_duration_seconds",
            "Wall time of a turn, from its start to its end",
            turn_seconds.clone(),
        );
        let tool_calls = Family::<ToolLabels, Counter>::default();
        registry.register(
            "tool_calls",
            "Tool calls ended, by tool and outcome",
            tool_calls.clone(),
        );
        let tool_call_seconds = Family::<ToolNameLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(seconds_buckets())
        });
        registry.register(
            "tool_call_duration_seconds",
            "Wall time of a tool call, by tool",
            tool_call_seconds.clone(),
        );
        let model_retries = Counter::default();
        registry.register(
            "model_retries",
            "Model requests sent again after a failed attempt",
            model_retries.clone(),
        );
        let sub_agents = Family::<SubAgentLabels, Counter>::default();
        registry.register(
            "sub_agents",
            "Sub-agents ended, by agent and outcome",
            sub_agents.clone(),
        );
        let active_sub_agents = Gauge::default();
        registry.register(
            "active_sub_agents",
            "Sub-agents working now",
            active_sub_agents.clone(),
        );
        let compressions = Family::<CompressionLabels, Counter>::default();
        registry.register(
            "compressions",
            "Context compressions ended, by trigger and outcome",
            compressions.clone(),
        );
        let sse_subscribers = Gauge::default();
        registry.register(
            "sse_subscribers",
            "Event-stream subscribers connected now",
            sse_subscribers.clone(),
        );
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
