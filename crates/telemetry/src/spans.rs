//! Series measured from the crates' `tracing` spans — the same spans a trace shows, so
//! a model request is timed once for both: each `chat` span's wall time, time to first
//! token and tokens by model; each `store` span's wall time by operation; and each
//! `turn`'s host overhead, its wall time less the time covered by its model requests
//! and tool calls (overlapping ones counted once); and each HTTP `request`'s own store
//! time, which the server reports in `Server-Timing`.

use std::sync::Arc;
use std::time::{Duration, Instant};

use tracing::field::{Field, Visit};
use tracing::span::{Attributes, Id, Record};
use tracing::{Metadata, Subscriber};
use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::layer::Context;
use tracing_subscriber::registry::LookupSpan;

use crate::Metrics;
use crate::span_series::{ModelLabels, ModelRequestLabels, StoreLabels, TokenLabels};

/// The spans the layer times.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Request,
    Turn,
    Chat,
    Tool,
    Store,
}

impl Kind {
    fn of(metadata: &Metadata<'_>) -> Option<Self> {
        if !metadata.is_span() || !metadata.target().starts_with("smallebot") {
            return None;
        }
        match metadata.name() {
            "request" => Some(Self::Request),
            "turn" => Some(Self::Turn),
            "chat" => Some(Self::Chat),
            "execute_tool" => Some(Self::Tool),
            "store" => Some(Self::Store),
            _ => None,
        }
    }
}

/// What the layer keeps on a span it times.
#[derive(Debug)]
struct Timing {
    kind: Kind,
    started: Instant,
    fields: Fields,
    /// A turn's: the intervals its model requests and tool calls covered.
    covered: Vec<(Instant, Instant)>,
    /// A request's: the time its store operations took (not its turns').
    store: Duration,
}

/// The span fields the series take.
#[derive(Debug, Default)]
struct Fields {
    model: String,
    purpose: String,
    operation: String,
    error: Option<String>,
    input_tokens: Option<u64>,
    output_tokens: Option<u64>,
    cached_tokens: Option<u64>,
    first_token: Option<Duration>,
}

impl Visit for Fields {
    fn record_str(&mut self, field: &Field, value: &str) {
        match field.name() {
            "gen_ai.request.model" => value.clone_into(&mut self.model),
            "smallebot.request.purpose" => value.clone_into(&mut self.purpose),
            "operation" => value.clone_into(&mut self.operation),
            "error.type" => self.error = Some(value.to_owned()),
            _ => {}
        }
    }

    fn record_u64(&mut self, field: &Field, value: u64) {
        match field.name() {
            "gen_ai.usage.input_tokens" => self.input_tokens = Some(value),
            "gen_ai.usage.output_tokens" => self.output_tokens = Some(value),
            "gen_ai.usage.cache_read.input_tokens" => self.cached_tokens = Some(value),
            _ => {}
        }
    }

    fn record_i64(&mut self, field: &Field, value: i64) {
        if let Ok(value) = u64::try_from(value) {
            self.record_u64(field, value);
        }
    }

    fn record_f64(&mut self, field: &Field, value: f64) {
        if field.name() == "smallebot.time_to_first_token_seconds"
            && value.is_finite()
            && value >= 0.0
        {
            self.first_token = Some(Duration::from_secs_f64(value));
        }
    }

    fn record_debug(&mut self, field: &Field, value: &dyn std::fmt::Debug) {
        // `%value` fields (the model's name) arrive here; the others (a span's
        // `otel.name`, …) are not formatted for nothing.
        if !matches!(
            field.name(),
            "gen_ai.request.model" | "smallebot.request.purpose" | "operation" | "error.type"
        ) {
            return;
        }
        let text = format!("{value:?}");
        let text = text.trim_matches('"');
        self.record_str(field, text);
    }
}

/// The layer; see the module's documentation.
pub(crate) struct SpanMetrics {
    metrics: Arc<Metrics>,
}

impl SpanMetrics {
    pub(crate) fn new(metrics: Arc<Metrics>) -> Self {
        Self { metrics }
    }

    /// Only the spans it times (its filter keeps the others from being made for it).
    pub(crate) fn layer<S>(self) -> impl Layer<S>
    where
        S: Subscriber + for<'span> LookupSpan<'span>,
    {
        self.with_filter(filter_fn(|metadata| Kind::of(metadata).is_some()))
    }

    fn close_chat(&self, fields: &Fields, took: Duration) {
        let series = &self.metrics.series.spans;
        let outcome = fields.error.clone().unwrap_or_else(|| "ok".to_owned());
        series
            .model_requests
            .get_or_create(&ModelRequestLabels {
                model: fields.model.clone(),
                purpose: fields.purpose.clone(),
                outcome,
            })
            .inc();
        let model = ModelLabels {
            model: fields.model.clone(),
        };
        series
            .model_request_seconds
            .get_or_create(&model)
            .observe(took.as_secs_f64());
        if let Some(first) = fields.first_token {
            series
                .model_first_token_seconds
                .get_or_create(&model)
                .observe(first.as_secs_f64());
        }
        for (kind, tokens) in [
            ("input", fields.input_tokens),
            ("output", fields.output_tokens),
            ("cached_input", fields.cached_tokens),
        ] {
            if let Some(tokens) = tokens {
                series
                    .model_tokens
                    .get_or_create(&TokenLabels {
                        model: fields.model.clone(),
                        kind,
                    })
                    .inc_by(tokens);
            }
        }
    }
}

impl<S> Layer<S> for SpanMetrics
where
    S: Subscriber + for<'span> LookupSpan<'span>,
{
    fn on_new_span(&self, attrs: &Attributes<'_>, id: &Id, ctx: Context<'_, S>) {
        let (Some(kind), Some(span)) = (Kind::of(attrs.metadata()), ctx.span(id)) else {
            return;
        };
        let mut fields = Fields::default();
        attrs.record(&mut fields);
        span.extensions_mut().insert(Timing {
            kind,
            started: Instant::now(),
            fields,
            covered: Vec::new(),
            store: Duration::ZERO,
        });
    }

    fn on_record(&self, id: &Id, values: &Record<'_>, ctx: Context<'_, S>) {
        if let Some(span) = ctx.span(id)
            && let Some(timing) = span.extensions_mut().get_mut::<Timing>()
        {
            values.record(&mut timing.fields);
        }
    }

    fn on_close(&self, id: Id, ctx: Context<'_, S>) {
        let Some(span) = ctx.span(&id) else {
            return;
        };
        let Some(timing) = span.extensions_mut().remove::<Timing>() else {
            return;
        };
        let ended = Instant::now();
        let took = ended.saturating_duration_since(timing.started);
        match timing.kind {
            Kind::Chat | Kind::Tool => {
                if timing.kind == Kind::Chat {
                    self.close_chat(&timing.fields, took);
                }
                // Time the turn it belongs to did not spend on the host.
                let turn = span.scope().skip(1).find(|ancestor| {
                    ancestor
                        .extensions()
                        .get::<Timing>()
                        .is_some_and(|t| t.kind == Kind::Turn)
                });
                if let Some(turn) = turn
                    && let Some(turn) = turn.extensions_mut().get_mut::<Timing>()
                {
                    turn.covered.push((timing.started, ended));
                }
            }
            Kind::Store => {
                // A request's own store time; a turn it started is no longer its.
                let owner = span.scope().skip(1).find_map(|ancestor| {
                    let kind = ancestor.extensions().get::<Timing>().map(|t| t.kind);
                    matches!(kind, Some(Kind::Request | Kind::Turn)).then_some((ancestor, kind))
                });
                if let Some((request, Some(Kind::Request))) = owner
                    && let Some(request) = request.extensions_mut().get_mut::<Timing>()
                {
                    request.store += took;
                }
                self.metrics
                    .series
                    .spans
                    .store_seconds
                    .get_or_create(&StoreLabels {
                        operation: timing.fields.operation.clone(),
                    })
                    .observe(took.as_secs_f64());
            }
            Kind::Request => {}
            Kind::Turn => {
                let away = covered(timing.covered);
                let overhead = took.saturating_sub(away);
                self.metrics
                    .series
                    .spans
                    .turn_overhead_seconds
                    .observe(overhead.as_secs_f64());
            }
        }
    }
}

/// The store time of the request `span` is (see [`SpanMetrics`]), read from the
/// subscriber's registry; `None` when the span is unknown or untimed.
pub(crate) fn store_time(span: &tracing::Span) -> Option<Duration> {
    span.with_subscriber(|(id, dispatch)| {
        let registry = dispatch.downcast_ref::<tracing_subscriber::Registry>()?;
        let data = registry.span(id)?;
        let extensions = data.extensions();
        extensions.get::<Timing>().map(|t| t.store)
    })
    .flatten()
}

/// How much time the intervals cover together (overlaps counted once).
fn covered(mut intervals: Vec<(Instant, Instant)>) -> Duration {
    intervals.sort_by_key(|(start, _)| *start);
    let mut total = Duration::ZERO;
    let mut current: Option<(Instant, Instant)> = None;
    for (start, end) in intervals {
        current = match current {
            Some((from, to)) if start <= to => Some((from, to.max(end))),
            Some((from, to)) => {
                total += to.saturating_duration_since(from);
                Some((start, end))
            }
            None => Some((start, end)),
        };
    }
    if let Some((from, to)) = current {
        total += to.saturating_duration_since(from);
    }
    total
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn overlapping_intervals_are_counted_once() {
        let t = Instant::now();
        let at = |ms: u64| t + Duration::from_millis(ms);
        let cases: [(&[(u64, u64)], u64); 5] = [
            (&[], 0),
            (&[(0, 10)], 10),
            (&[(0, 10), (5, 15)], 15),
            (&[(20, 30), (0, 10)], 20),
            (&[(0, 50), (10, 20), (30, 40), (60, 70)], 60),
        ];
        for (case, expected) in cases {
            let intervals = case.iter().map(|(a, b)| (at(*a), at(*b))).collect();
            assert_eq!(
                covered(intervals),
                Duration::from_millis(expected),
                "{case:?}"
            );
        }
    }
}
