//! Checkpoint captures around a tool call in a 10 000-file workspace: the index kept
//! between calls (on Linux, only what change notifications name is examined) beside
//! indexing and hashing the whole tree again. Each capture's cost
//! is the CPU time of the measuring thread, its own and the kernel's for its calls
//! (waiting for a core on a busy machine does not count; wall time where it cannot be
//! read), with the median wall time printed beside it.

use std::path::Path;
use std::time::{Duration, Instant};

use smallebot_checkpoints::{FolderStore, IgnoreRules, Limits, Workspace};

use super::render::thread_cpu;
use super::{Figure, median, ms};

/// Files in the workspace, spread over this many folders.
const FILES: usize = 10_000;
const FOLDERS: usize = 100;
/// Captures measured per figure.
const ROUNDS: usize = 50;

/// The figures: a capture when nothing changed, and when one file changed.
pub fn run() -> Result<Vec<Figure>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let root = dir.path().join("workspace");
    fill(&root)?;
    let store = FolderStore::open(&dir.path().join("contents")).map_err(|e| e.to_string())?;
    let rules = IgnoreRules::with_defaults::<&str>(&[], None).map_err(|e| e.to_string())?;
    let mut ws = Workspace::open(&root, rules, Limits::default()).map_err(|e| e.to_string())?;
    // The first baseline keeps every content; the measured ones index and hash it all.
    ws.baseline(&store).map_err(|e| e.to_string())?;
    let mut full = Timings::default();
    for _ in 0..5 {
        full.measure(|| ws.baseline(&store).map(drop))?;
    }
    let mut unchanged = Timings::default();
    for _ in 0..ROUNDS {
        let capture = unchanged.measure(|| ws.capture(&store))?;
        if !capture.is_empty() {
            return Err("a capture of an unchanged workspace found changes".to_owned());
        }
    }
    let mut one = Timings::default();
    for round in 0..ROUNDS {
        let file = root.join("d7").join("f42.txt");
        std::fs::write(&file, format!("changed in round {round}\n")).map_err(|e| e.to_string())?;
        let capture = one.measure(|| ws.capture(&store))?;
        if capture.changes.len() != 1 {
            return Err(format!(
                "one changed file gave {} changes",
                capture.changes.len()
            ));
        }
    }
    Ok(vec![
        figure(
            "nothing changed",
            &unchanged,
            &full,
            Duration::from_millis(5),
        ),
        figure("one file changed", &one, &full, Duration::from_millis(10)),
    ])
}

/// CPU and wall times of some runs.
#[derive(Default)]
struct Timings {
    cpu: Vec<Duration>,
    wall: Vec<Duration>,
}

impl Timings {
    /// Runs `work` once, timed.
    fn measure<T>(
        &mut self,
        work: impl FnOnce() -> Result<T, smallebot_checkpoints::CheckpointError>,
    ) -> Result<T, String> {
        let (started, cpu) = (Instant::now(), thread_cpu());
        let out = work().map_err(|e| e.to_string())?;
        let wall = started.elapsed();
        self.cpu.push(match (cpu, thread_cpu()) {
            (Some(before), Some(after)) => after.saturating_sub(before),
            _ => wall,
        });
        self.wall.push(wall);
        Ok(out)
    }

    /// The median CPU time and the median wall time.
    fn medians(&self) -> (Duration, Duration) {
        (median(self.cpu.clone()), median(self.wall.clone()))
    }
}

fn figure(what: &str, timings: &Timings, full: &Timings, target: Duration) -> Figure {
    let (value, wall) = timings.medians();
    let (full, full_wall) = full.medians();
    Figure {
        name: format!(
            "Checkpoint capture around a call, {what}, {FILES}-file workspace (median of {ROUNDS})"
        ),
        value: format!(
            "capture against the kept index (change notifications where the system gives them): {} CPU ({} wall)",
            ms(value),
            ms(wall)
        ),
        baseline: format!(
            "indexing and hashing the whole tree: {} CPU ({} wall)",
            ms(full),
            ms(full_wall)
        ),
        ratio: match full.as_secs_f64() / value.as_secs_f64().max(1e-9) {
            ratio if ratio > 10_000.0 => "over 10 000× faster".to_owned(),
            ratio => format!("{ratio:.0}× faster"),
        },
        target: format!(
            "≤ {} ms median: {}",
            target.as_millis(),
            if value <= target { "met" } else { "NOT met" }
        ),
    }
}

/// `FILES` small source-like files in `FOLDERS` folders.
fn fill(root: &Path) -> Result<(), String> {
    for folder in 0..FOLDERS {
        let path = root.join(format!("d{folder}"));
        std::fs::create_dir_all(&path).map_err(|e| e.to_string())?;
        for file in 0..FILES / FOLDERS {
            let text = format!("// file {file} of folder {folder}\nfn f() {{}}\n").repeat(8);
            std::fs::write(path.join(format!("f{file}.txt")), text).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}
