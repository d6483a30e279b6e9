//! The terminal's Markdown renderer: the CPU to render a long answer as it streams in
//! small deltas (each delta drawn: committed blocks and the open block redrawn), at
//! 10 KB and 100 KB to show it grows linearly.

use std::time::{Duration, Instant};

use smallebot_term_markdown::{Highlighter, LiveMarkdown, Size};

use super::{Figure, median, ms};

/// Bytes per streamed delta (about one token).
const DELTA: usize = 4;
/// Bytes rendered for one timed sample (the answer as many times as that takes): the
/// kernel counts CPU time in ticks of a few milliseconds, so a sample of 1.5 MB reads
/// about 0.3 ms of the 100 KB figure per tick.
const SAMPLE: usize = 1_500_000;
/// The terminal the answer is drawn on.
const SIZE: Size = Size {
    width: 100,
    height: 50,
};

/// One section of the answer: a heading, paragraphs with inline markup, a numbered
/// list with a nested one, a table, a code block and a quote.
fn section(n: usize, code: bool) -> String {
    let code = if code {
        format!(
            "```rust\nfn section_{n}(x: u64) -> u64 {{\n    // a comment\n    let y = x * 2;\n    \
             println!(\"{{y}}\");\n    y + {n}\n}}\n```\n\n"
        )
    } else {
        String::new()
    };
    format!(
        "## Section {n}\n\n\
         The renderer wraps **this paragraph** at word boundaries, with *emphasis*, \
         `inline code` and a [link](https://example.com/{n}) so that every inline kind \
         is parsed while the text streams in small pieces, the way a model sends them. \
         It goes on for a few lines to be a paragraph of the usual length in an answer.\n\n\
         1. First step of {n}, short.\n\
         2. Second step with a longer explanation that wraps onto a second line here.\n   \
            - a nested point\n   - another nested point\n\
         3. Third step.\n\n\
         | Name | Kind | Size |\n|------|------|-----:|\n| alpha{n} | file | 1024 |\n\
         | beta | directory | 4096 |\n| gamma | link | 12 |\n\n\
         {code}\
         > A quoted remark that ends the section.\n\n"
    )
}

/// An answer of about `bytes` bytes (with code blocks or not).
fn answer(bytes: usize, code: bool) -> String {
    let mut text = String::new();
    let mut n = 0;
    while text.len() < bytes {
        text.push_str(&section(n, code));
        n += 1;
    }
    text
}

/// CPU time this thread has run (Linux's `/proc/thread-self/schedstat`, in
/// nanoseconds); `None` where it cannot be read.
pub(super) fn thread_cpu() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    let nanos = stat.split_whitespace().next()?.parse().ok()?;
    Some(Duration::from_nanos(nanos))
}

/// Renders `text` streamed in deltas of [`DELTA`] bytes, as many times as it takes to
/// render about [`SAMPLE`] bytes (the kernel counts a thread's CPU time in steps of a
/// few milliseconds: one small answer would be one or two steps); returns the thread's
/// CPU time for one rendering (wall time where that cannot be read: on a busy machine
/// that counts waiting too).
fn render(text: &str, highlighter: &Highlighter) -> Duration {
    let chars: Vec<char> = text.chars().collect();
    let deltas: Vec<String> = chars.chunks(DELTA).map(|c| c.iter().collect()).collect();
    let times = SAMPLE.div_ceil(text.len().max(1));
    let (started, cpu) = (Instant::now(), thread_cpu());
    for _ in 0..times {
        let mut live = LiveMarkdown::new(highlighter.clone(), true);
        let mut printed = 0;
        for delta in &deltas {
            printed += live.push(delta, SIZE).len();
        }
        printed += live.finish(SIZE).len();
        std::hint::black_box(printed);
    }
    let total = match (cpu, thread_cpu()) {
        (Some(before), Some(after)) => after.saturating_sub(before),
        _ => started.elapsed(),
    };
    total / u32::try_from(times).unwrap_or(u32::MAX)
}

/// Measures 10 KB and 100 KB answers (median of 5 each), the grammars (for the code
/// not in Rust) loaded first.
pub fn run() -> Figure {
    let highlighter = Highlighter::default();
    // Rust needs no grammar; any other language loads them all.
    let started = Instant::now();
    let _ = highlighter.block("python");
    let load = started.elapsed();
    let (small, large) = (answer(10_000, true), answer(100_000, true));
    let prose = answer(100_000, false);
    let time = |text: &str| median((0..5).map(|_| render(text, &highlighter)).collect());
    let (small_time, large_time, prose_time) = (time(&small), time(&large), time(&prose));
    let ratio = large_time.as_secs_f64() / small_time.as_secs_f64().max(1e-9);
    let met = if large_time <= Duration::from_millis(20) {
        "met"
    } else {
        "NOT met"
    };
    Figure {
        name: format!(
            "terminal Markdown rendering ({} KB answer streamed in {DELTA}-byte deltas, {}×{})",
            large.len() / 1000,
            SIZE.width,
            SIZE.height
        ),
        value: format!(
            "{} for {} bytes (CPU time of the rendering thread, median of 5 samples of about 1.5 MB \
             rendered); the same sections without \
             their code blocks ({} bytes): {}",
            ms(large_time),
            large.len(),
            prose.len(),
            ms(prose_time)
        ),
        baseline: format!(
            "{} for {} bytes; loading the code grammars once per process, on the first code block not in Rust: {}",
            ms(small_time),
            small.len(),
            ms(load)
        ),
        ratio: format!(
            "100 KB / 10 KB: {ratio:.1}× for {:.1}× the text (linear: about the same)",
            large.len() as f64 / small.len() as f64
        ),
        target: format!("≤ 20 ms for 100 KB, linear in the size: {met}"),
    }
}
