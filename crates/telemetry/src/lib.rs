//! # smallebot-telemetry
//!
//! The process's metrics in the Prometheus (OpenMetrics) text format, through
//! `prometheus-client`, the Prometheus project's own Rust client. [`Metrics`] observes
//! the application's event bus ([`EventObserver`]): what the events say — a turn's
//! start and outcome, a tool call's start and end, a retry, a compression — becomes
//! counters, gauges and histograms, so the pipeline carries no metrics code. Servers
//! add what only they see (event-stream subscribers) through [`Metrics::sse_subscribers`].
//!
//! Labels stay few and bounded: outcomes and triggers are fixed words; tool names are
//! the registry's (MCP tools included), never a user's text.
//!
//! What only spans see — a model request's latency, time to first token and tokens,
//! a store operation's latency, a turn's time on the host — is measured by
//! [`Metrics::span_layer`] from the same `tracing` spans traces are made of.
//! [`Traces`] exports the crates' `tracing` spans over OTLP when the standard
//! OpenTelemetry variables name a collector.

pub mod logs;
mod observe;
mod series;
mod span_series;
mod spans;
mod traces;
mod usage_series;

use std::sync::Mutex;

pub use series::Series;
pub use span_series::SpanSeries;
pub use traces::{CONTENT_FIELD, ENDPOINT_VARIABLES, Traces, TracesError, keeps_content};
pub use usage_series::UsageSeries;

use smallebot_application::events::EventObserver;
use smallebot_application::ports::MetricsExport;

/// The metrics of this process: its series and what the observer remembers between
/// events (when each running turn and tool call started).
#[derive(Debug, Default)]
pub struct Metrics {
    series: Series,
    started: Mutex<observe::Started>,
    /// Whether tokens and cost carry the user as a label (`serve --metrics-per-user`).
    per_user: std::sync::atomic::AtomicBool,
}

/// The content type of [`Metrics::render`]'s text.
pub const CONTENT_TYPE: &str = "application/openmetrics-text; version=1.0.0; charset=utf-8";

impl Metrics {
    /// New metrics, every series at zero.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// Labels tokens and cost by user too from now on when `on` (`serve
    /// --metrics-per-user`: a series per user and model, so off by default).
    pub fn count_per_user(&self, on: bool) {
        self.per_user
            .store(on, std::sync::atomic::Ordering::Relaxed);
    }

    /// The series, to count what the events do not say.
    #[must_use]
    pub fn series(&self) -> &Series {
        &self.series
    }

    /// One more (`true`) or one fewer (`false`) event-stream subscriber.
    pub fn sse_subscribers(&self, more: bool) {
        if more {
            self.series.sse_subscribers.inc();
        } else {
            self.series.sse_subscribers.dec();
        }
    }

    /// A `tracing` layer timing the crates' spans into these metrics: model requests
    /// (wall time, time to first token, tokens by model), store operations, and each
    /// turn's host overhead. Install it in the process's subscriber.
    #[must_use]
    pub fn span_layer<S>(self: &std::sync::Arc<Self>) -> impl tracing_subscriber::Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'span> tracing_subscriber::registry::LookupSpan<'span>,
    {
        spans::SpanMetrics::new(std::sync::Arc::clone(self)).layer()
    }

    /// Every series in the text format (ends with `# EOF`).
    #[must_use]
    pub fn render(&self) -> String {
        self.series.render()
    }
}

impl MetricsExport for Metrics {
    fn render(&self) -> String {
        Metrics::render(self)
    }

    fn content_type(&self) -> &'static str {
        CONTENT_TYPE
    }

    fn sse_subscribers(&self, more: bool) {
        Metrics::sse_subscribers(self, more);
    }

    fn store_time(&self, span: &tracing::Span) -> Option<std::time::Duration> {
        spans::store_time(span)
    }
}

impl EventObserver for Metrics {
    fn observe(&self, event: &smallebot_application::events::Event) {
        observe::observe(self, event);
    }
}

impl smallebot_application::metering::UsageObserver for Metrics {
    fn recorded(&self, record: &smallebot_core::entities::UsageRecord) {
        let per_user = self.per_user.load(std::sync::atomic::Ordering::Relaxed);
        self.series.usage.count(record, per_user);
    }
}
