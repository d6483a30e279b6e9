//! The log subscriber: every `tracing` event of the crates goes to standard error, as
//! text or as one JSON object per line (`--log-format`), filtered by `--log-level`,
//! else `RUST_LOG`, else a default per command. Events carrying a `content` field (a
//! user's message, a model's answer) are dropped unless `--log-content` is given.
//! Standard output is never written: `run` and `chat` print there. Lines are written by
//! a thread of their own: a reader of standard error that stalls (a full pipe) never
//! blocks the server; past `LINES_WAITING` (10 000) lines waiting, new ones are dropped.
//! When the OpenTelemetry variables name a collector, the same spans also go there
//! ([`Traces`]), under the same rule about content; a server's [`Metrics`] time them.

use std::io::IsTerminal;
use std::sync::Arc;

use crate::{Metrics, Traces, keeps_content};
use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::{FilterExt, filter_fn};
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

/// How log events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogFormat {
    /// One readable line per event.
    Text,
    /// One JSON object per line, with the fields of the spans it happened in.
    Json,
}

/// How many log lines may wait for a stalled standard error before new ones are dropped.
const LINES_WAITING: usize = 10_000;

/// What the command line says about logs.
pub struct LogOptions<'a> {
    /// `--log-format`.
    pub format: LogFormat,
    /// `--log-level`.
    pub level: Option<&'a str>,
    /// `--log-content`.
    pub content: bool,
    /// Whether the command is `serve` (its default level is info).
    pub serving: bool,
}

/// What must live until the process ends: dropping it sends the spans still waiting
/// to the collector, then writes the log lines still waiting.
pub struct LogGuard {
    _traces: Option<Traces>,
    _lines: WorkerGuard,
    metrics: Option<Arc<Metrics>>,
}

impl LogGuard {
    /// `serve`'s metrics, which the subscriber times spans into.
    pub fn metrics(&self) -> Option<Arc<Metrics>> {
        self.metrics.clone()
    }
}

/// Why the process's logs could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum LogError {
    /// `--log-level` or `RUST_LOG` is no level or filter.
    #[error("{source_name} {directives:?} is not a level or filter: {message}")]
    Filter {
        /// Where the filter came from (`--log-level` or `RUST_LOG`).
        source_name: &'static str,
        /// What it said.
        directives: String,
        /// What the parser said.
        message: String,
    },
    /// The OpenTelemetry variables ask for what cannot be done.
    #[error(transparent)]
    Traces(#[from] crate::TracesError),
    /// Another subscriber was installed first.
    #[error("cannot install the log subscriber: {0}")]
    Install(String),
}

/// Installs the subscriber for this process; keep what it returns until the process
/// ends.
///
/// # Errors
/// The filter does not parse (the message names it and where it came from), the
/// OpenTelemetry variables ask for what cannot be done, or a subscriber is already
/// installed.
pub fn install(options: &LogOptions<'_>) -> Result<LogGuard, LogError> {
    let filter = level_filter(options)?;
    let log_content = options.content;
    let traces = Traces::from_env()?;
    let content = filter_fn(move |metadata| keeps_content(metadata, log_content));
    let filter = filter.and(content);
    let ansi = std::io::stderr().is_terminal()
        && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty());
    let (writer, guard) = tracing_appender::non_blocking::NonBlockingBuilder::default()
        .buffered_lines_limit(LINES_WAITING)
        .lossy(true)
        .finish(std::io::stderr());
    let layer = match options.format {
        LogFormat::Text => tracing_subscriber::fmt::layer()
            .with_writer(writer.clone())
            .with_ansi(ansi)
            .with_filter(filter)
            .boxed(),
        LogFormat::Json => tracing_subscriber::fmt::layer()
            .json()
            .with_writer(writer.clone())
            .with_current_span(true)
            .with_span_list(true)
            .with_filter(filter)
            .boxed(),
    };
    let exported = traces.as_ref().map(|traces| traces.layer(log_content));
    // Only a server has metrics to fill: other commands make no spans for them.
    let metrics = options.serving.then(|| Arc::new(Metrics::new()));
    let timed = metrics.as_ref().map(Metrics::span_layer);
    tracing_subscriber::registry()
        .with(layer)
        .with(exported)
        .with(timed)
        .try_init()
        .map_err(|err| LogError::Install(err.to_string()))?;
    Ok(LogGuard {
        _traces: traces,
        _lines: guard,
        metrics,
    })
}

/// The filter: `--log-level`, else `RUST_LOG`, else info for `serve` and warn otherwise.
fn level_filter(options: &LogOptions<'_>) -> Result<EnvFilter, LogError> {
    if let Some(directives) = options.level {
        return EnvFilter::try_new(directives).map_err(refused("--log-level", directives));
    }
    if let Ok(directives) = std::env::var(EnvFilter::DEFAULT_ENV)
        && !directives.trim().is_empty()
    {
        return EnvFilter::try_new(&directives).map_err(refused("RUST_LOG", &directives));
    }
    let default = if options.serving { "info" } else { "warn" };
    Ok(EnvFilter::new(default))
}

/// The error for a filter `directives` from `source_name` that did not parse.
fn refused<'a>(
    source_name: &'static str,
    directives: &'a str,
) -> impl FnOnce(tracing_subscriber::filter::ParseError) -> LogError + 'a {
    move |err| LogError::Filter {
        source_name,
        directives: directives.to_owned(),
        message: err.to_string(),
    }
}
