//! `cargo xtask bench`: the performance figures of docs/design.md §13, each printed beside a
//! baseline measured in the same run, as ratios.

mod agents;
mod chat;
mod checkpoints;
mod compression;
mod estimate;
mod fixture;
mod harness;
mod hooks;
mod idle_streams;
mod markdown;
mod overhead;
mod page;
mod page_probe;
mod pg_fill;
mod render;
mod run;
mod search;
mod serve;
mod server;

use clap::Args;

/// Arguments of `cargo xtask bench`.
#[derive(Debug, Args)]
pub struct BenchArgs {
    /// Rows stored for the search benchmark.
    #[arg(long, default_value_t = 1_000_000)]
    search_rows: usize,
    /// Run only these benchmarks (overhead, run, chat, estimate, search, compression,
    /// serve, render, markdown, page, checkpoints, agents, hooks).
    #[arg(long, value_delimiter = ',')]
    only: Vec<String>,
    /// Also measure search and overhead on this PostgreSQL database
    /// (postgres://user@host:port/db), printed beside SQLite. Use a scratch database:
    /// the benchmark writes its rows there and deletes them afterwards. Without it the
    /// overhead is measured on a throwaway cluster when `initdb` is installed.
    #[arg(long, value_name = "URL")]
    database: Option<String>,
    /// Measure a debug build (`cargo xtask` builds one instead of the release build).
    /// Its figures say little.
    #[arg(long)]
    debug: bool,
}

/// One printed figure.
pub struct Figure {
    /// What was measured.
    pub name: String,
    /// The measurement.
    pub value: String,
    /// The baseline it is compared with.
    pub baseline: String,
    /// How the two compare.
    pub ratio: String,
    /// The target of docs/design.md §13 and whether it is met.
    pub target: String,
}

fn print(figures: &[Figure]) {
    for f in figures {
        println!("{}", f.name);
        println!("    value     {}", f.value);
        println!("    baseline  {}", f.baseline);
        println!("    ratio     {}", f.ratio);
        println!("    target    {}", f.target);
    }
}

/// Formats milliseconds.
pub fn ms(d: std::time::Duration) -> String {
    format!("{:.3} ms", d.as_secs_f64() * 1000.0)
}

/// The median of some durations.
pub fn median(mut samples: Vec<std::time::Duration>) -> std::time::Duration {
    samples.sort();
    samples.get(samples.len() / 2).copied().unwrap_or_default()
}

/// Runs the benchmarks.
pub async fn run(args: BenchArgs) -> Result<(), String> {
    let wants = |name: &str| args.only.is_empty() || args.only.iter().any(|o| o == name);
    let profile = if cfg!(debug_assertions) || args.debug {
        "debug"
    } else {
        "release"
    };
    println!("SmallEBot benchmarks ({profile} build); each figure beside its baseline\n");
    if wants("overhead") {
        print(&overhead::run(args.database.as_deref()).await?);
    }
    if wants("run") {
        print(&run::run().await?);
    }
    if wants("chat") {
        print(&chat::run().await?);
    }
    if wants("estimate") {
        print(&estimate::run().await?);
    }
    if wants("compression") {
        print(&compression::run().await?);
    }
    if wants("search") {
        print(&search::run(args.search_rows, args.database.as_deref()).await?);
    }
    if wants("render") {
        print(&[render::run()]);
    }
    if wants("markdown") {
        print(&markdown::run().await?);
    }
    if wants("serve") {
        print(&serve::run().await?);
        print(&idle_streams::run().await?);
    }
    if wants("page") {
        print(&page::run().await?);
    }
    if wants("checkpoints") {
        print(&checkpoints::run()?);
    }
    if wants("agents") {
        print(&agents::run().await?);
    }
    if wants("hooks") {
        print(&hooks::run().await?);
    }
    Ok(())
}
