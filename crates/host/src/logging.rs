//! The log subscriber: every `tracing` event of the crates goes to standard error, as
//! text or as one JSON object per line (`--log-format`), filtered by `--log-level`,
//! else `RUST_LOG`, else a default per command. Events carrying a `content` field (a
//! user's message, a model's answer) are dropped unless `--log-content` is given.
//! Standard output is never written: `run` and `chat` print there. Lines are written by
//! a thread of their own: a reader of standard error that stalls (a full pipe) never
//! blocks the server; past [`LINES_WAITING`] lines waiting, new ones are dropped.

use std::io::IsTerminal;

use tracing_appender::non_blocking::WorkerGuard;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::filter::{FilterExt, filter_fn};
use tracing_subscriber::layer::{Layer, SubscriberExt};
use tracing_subscriber::util::SubscriberInitExt;

/// How log events are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum LogFormat {
    /// One readable line per event.
    Text,
    /// One JSON object per line, with the fields of the spans it happened in.
    Json,
}

/// How many log lines may wait for a stalled standard error before new ones are dropped.
const LINES_WAITING: usize = 10_000;

/// The field that marks an event as carrying content.
const CONTENT_FIELD: &str = "content";

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

/// Installs the subscriber for this process; keep what it returns until the process
/// ends (dropping it writes the lines still waiting).
///
/// # Errors
/// The filter does not parse (the message names it and where it came from), or a
/// subscriber is already installed.
pub fn install(options: &LogOptions<'_>) -> Result<WorkerGuard, String> {
    let filter = level_filter(options)?;
    let log_content = options.content;
    let content = filter_fn(move |metadata| {
        log_content || !metadata.is_event() || metadata.fields().field(CONTENT_FIELD).is_none()
    });
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
    tracing_subscriber::registry()
        .with(layer)
        .try_init()
        .map_err(|err| format!("cannot install the log subscriber: {err}"))?;
    Ok(guard)
}

/// The filter: `--log-level`, else `RUST_LOG`, else info for `serve` and warn otherwise.
fn level_filter(options: &LogOptions<'_>) -> Result<EnvFilter, String> {
    if let Some(directives) = options.level {
        return EnvFilter::try_new(directives)
            .map_err(|err| format!("--log-level {directives:?} is not a level or filter: {err}"));
    }
    if let Ok(directives) = std::env::var(EnvFilter::DEFAULT_ENV)
        && !directives.trim().is_empty()
    {
        return EnvFilter::try_new(&directives)
            .map_err(|err| format!("RUST_LOG {directives:?} is not a level or filter: {err}"));
    }
    let default = if options.serving { "info" } else { "warn" };
    Ok(EnvFilter::new(default))
}
