//! The process's metrics as a front end serves them (`GET /metrics`).

/// Metrics a server exports and counts into: what the events say (it observes the
/// service's bus), its text for a scraper, and the event-stream subscribers only the
/// server sees.
pub trait MetricsExport: crate::events::EventObserver {
    /// Every series in the Prometheus (OpenMetrics) text format.
    fn render(&self) -> String;
    /// The content type of [`MetricsExport::render`]'s text.
    fn content_type(&self) -> &'static str;
    /// One more (`true`) or one fewer (`false`) event-stream subscriber.
    fn sse_subscribers(&self, more: bool);
    /// How long the store worked for the HTTP request running in `span` so far (not
    /// for a turn it started, which outlives the answer); `None` when unmeasured.
    fn store_time(&self, span: &tracing::Span) -> Option<std::time::Duration> {
        let _ = span;
        None
    }
}
