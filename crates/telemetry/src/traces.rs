//! Traces: the crates' `tracing` spans (a turn, each model request, each tool call, each
//! sub-agent) exported over OTLP/HTTP when the standard OpenTelemetry environment
//! variables name a collector. The crates never see OpenTelemetry: they open `tracing`
//! spans with `gen_ai.*` fields, and [`Traces::layer`] hands them to the SDK's batch
//! exporter (a thread of its own, so a slow collector never holds up a turn).

use std::time::Duration;

use opentelemetry::trace::TracerProvider as _;
use opentelemetry_otlp::{Protocol, WithExportConfig};
use opentelemetry_sdk::Resource;
use opentelemetry_sdk::trace::SdkTracerProvider;
use tracing::Metadata;
use tracing_subscriber::Layer;
use tracing_subscriber::filter::filter_fn;
use tracing_subscriber::registry::LookupSpan;

/// The field that marks a log event as carrying content (a user's message, a model's
/// answer, a tool's arguments): such events are kept only when content is asked for.
pub const CONTENT_FIELD: &str = "content";

/// The variables that turn tracing on: either names a collector.
pub const ENDPOINT_VARIABLES: [&str; 2] = [
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_ENDPOINT",
];

/// How long the end of the process waits for the last spans to reach the collector.
const SHUTDOWN_WAIT: Duration = Duration::from_secs(5);

/// Whether a log event or span is kept: events carrying [`CONTENT_FIELD`] only when
/// `content` (`--log-content`) is given; everything else always.
#[must_use]
pub fn keeps_content(metadata: &Metadata<'_>, content: bool) -> bool {
    content || !metadata.is_event() || metadata.fields().field(CONTENT_FIELD).is_none()
}

/// Why traces cannot be exported as the environment asks.
#[derive(Debug, thiserror::Error)]
pub enum TracesError {
    /// `OTEL_EXPORTER_OTLP_PROTOCOL` (or the traces one) names a protocol not offered.
    #[error(
        "{variable}={value:?} is not supported: SmallEBot exports traces over OTLP/HTTP — set it \
         to http/protobuf (the default) or http/json and point the endpoint at the collector's \
         HTTP port (4318)"
    )]
    Protocol {
        /// The variable.
        variable: &'static str,
        /// What it says.
        value: String,
    },
    /// The exporter could not be built (an endpoint that is no URL, a bad header).
    #[error("cannot export traces to the OTLP endpoint the environment names: {0}")]
    Exporter(String),
}

/// The span exporter of this process; [`Traces::shutdown`] (or dropping it) sends what
/// is still waiting.
#[derive(Debug)]
pub struct Traces {
    provider: SdkTracerProvider,
}

impl Traces {
    /// Traces as the standard environment variables ask: `None` when none of
    /// [`ENDPOINT_VARIABLES`] is set (or `OTEL_SDK_DISABLED=true`). The endpoint,
    /// headers, timeout and `http/protobuf` or `http/json` come from the usual
    /// `OTEL_EXPORTER_OTLP_*` variables; `service.name` is `smallebot` unless
    /// `OTEL_SERVICE_NAME` or `OTEL_RESOURCE_ATTRIBUTES` says otherwise.
    ///
    /// # Errors
    /// A protocol other than OTLP/HTTP is asked for, or the exporter cannot be built.
    pub fn from_env() -> Result<Option<Self>, TracesError> {
        Self::from_lookup(|name| std::env::var(name).ok())
    }

    /// [`Self::from_env`] reading variables through `var` (the exporter itself still
    /// reads the process environment for headers and timeouts).
    fn from_lookup(var: impl Fn(&str) -> Option<String>) -> Result<Option<Self>, TracesError> {
        let set = |name: &str| var(name).filter(|v| !v.trim().is_empty());
        if set("OTEL_SDK_DISABLED").is_some_and(|v| v.trim().eq_ignore_ascii_case("true")) {
            return Ok(None);
        }
        if ENDPOINT_VARIABLES.iter().all(|name| set(name).is_none()) {
            return Ok(None);
        }
        let mut protocol = Protocol::HttpBinary;
        for variable in [
            "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL",
            "OTEL_EXPORTER_OTLP_PROTOCOL",
        ] {
            if let Some(value) = set(variable) {
                protocol = match value.trim().to_ascii_lowercase().as_str() {
                    "http/protobuf" => Protocol::HttpBinary,
                    "http/json" => Protocol::HttpJson,
                    _ => return Err(TracesError::Protocol { variable, value }),
                };
                break;
            }
        }
        let exporter = opentelemetry_otlp::SpanExporter::builder()
            .with_http()
            .with_protocol(protocol)
            .build()
            .map_err(|err| TracesError::Exporter(err.to_string()))?;
        let mut resource = Resource::builder();
        if set("OTEL_SERVICE_NAME").is_none()
            && !set("OTEL_RESOURCE_ATTRIBUTES").is_some_and(|a| a.contains("service.name"))
        {
            resource = resource.with_service_name("smallebot");
        }
        let provider = SdkTracerProvider::builder()
            .with_batch_exporter(exporter)
            .with_resource(resource.build())
            .build();
        Ok(Some(Self { provider }))
    }

    /// The layer that hands the crates' spans to the exporter: SmallEBot's spans and
    /// events at info and above (never the libraries' own), events carrying content
    /// only when `content`.
    #[must_use]
    pub fn layer<S>(&self, content: bool) -> impl Layer<S> + use<S>
    where
        S: tracing::Subscriber + for<'span> LookupSpan<'span>,
    {
        let tracer = self.provider.tracer("smallebot");
        tracing_opentelemetry::layer()
            .with_tracer(tracer)
            .with_filter(filter_fn(move |metadata| {
                metadata.target().starts_with("smallebot")
                    && *metadata.level() <= tracing::Level::INFO
                    && keeps_content(metadata, content)
            }))
    }

    /// Sends the spans still waiting (waiting at most a few seconds for the collector)
    /// and stops the exporter.
    pub fn shutdown(&self) {
        // A collector that is down loses these spans; the process ends all the same.
        let _ = self.provider.shutdown_with_timeout(SHUTDOWN_WAIT);
    }
}

impl Drop for Traces {
    fn drop(&mut self) {
        self.shutdown();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lookup(pairs: &'static [(&'static str, &'static str)]) -> impl Fn(&str) -> Option<String> {
        move |name| {
            pairs
                .iter()
                .find(|(key, _)| *key == name)
                .map(|(_, value)| (*value).to_owned())
        }
    }

    #[test]
    fn no_endpoint_or_disabled_means_no_traces() {
        let cases: [&'static [(&str, &str)]; 4] = [
            &[],
            &[("OTEL_EXPORTER_OTLP_ENDPOINT", "  ")],
            &[
                ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
                ("OTEL_SDK_DISABLED", "TRUE"),
            ],
            &[("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc")],
        ];
        for case in cases {
            assert!(
                Traces::from_lookup(lookup(case)).unwrap().is_none(),
                "{case:?}"
            );
        }
    }

    #[test]
    fn grpc_is_refused_by_name() {
        let err = Traces::from_lookup(lookup(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4317"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ]))
        .unwrap_err();
        let text = err.to_string();
        assert!(
            text.contains("OTEL_EXPORTER_OTLP_PROTOCOL=\"grpc\""),
            "{text}"
        );
        assert!(text.contains("http/protobuf"), "{text}");
    }

    #[test]
    fn the_traces_protocol_wins_over_the_general_one() {
        let err = Traces::from_lookup(lookup(&[
            (
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
                "http://127.0.0.1:4318/v1/traces",
            ),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "grpc"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "http/json"),
        ]))
        .unwrap_err();
        assert!(
            err.to_string()
                .contains("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL")
        );
        let traces = Traces::from_lookup(lookup(&[
            ("OTEL_EXPORTER_OTLP_ENDPOINT", "http://127.0.0.1:4318"),
            ("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "http/json"),
            ("OTEL_EXPORTER_OTLP_PROTOCOL", "grpc"),
        ]))
        .unwrap();
        assert!(traces.is_some());
    }
}
