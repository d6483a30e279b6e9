//! Checkpoint captures around a tool call in a 10 000-file workspace: the index kept
//! between calls beside indexing and hashing the whole tree again.

use std::path::Path;
use std::time::{Duration, Instant};

use smallebot_checkpoints::{FolderStore, IgnoreRules, Limits, Workspace};

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
    let mut full = Vec::new();
    for _ in 0..5 {
        let start = Instant::now();
        ws.baseline(&store).map_err(|e| e.to_string())?;
        full.push(start.elapsed());
    }
    let full = median(full);
    let mut unchanged = Vec::new();
    for _ in 0..ROUNDS {
        let start = Instant::now();
        let capture = ws.capture(&store).map_err(|e| e.to_string())?;
        unchanged.push(start.elapsed());
        if !capture.is_empty() {
            return Err("a capture of an unchanged workspace found changes".to_owned());
        }
    }
    let mut one = Vec::new();
    for round in 0..ROUNDS {
        let file = root.join("d7").join("f42.txt");
        std::fs::write(&file, format!("changed in round {round}\n")).map_err(|e| e.to_string())?;
        let start = Instant::now();
        let capture = ws.capture(&store).map_err(|e| e.to_string())?;
        one.push(start.elapsed());
        if capture.changes.len() != 1 {
            return Err(format!(
                "one changed file gave {} changes",
                capture.changes.len()
            ));
        }
    }
    let (unchanged, one) = (median(unchanged), median(one));
    Ok(vec![
        figure("nothing changed", unchanged, full, Duration::from_millis(5)),
        figure("one file changed", one, full, Duration::from_millis(10)),
    ])
}

fn figure(what: &str, value: Duration, full: Duration, target: Duration) -> Figure {
    Figure {
        name: format!(
            "Checkpoint capture around a call, {what}, {FILES}-file workspace (median of {ROUNDS})"
        ),
        value: format!("scan against the kept index: {}", ms(value)),
        baseline: format!("indexing and hashing the whole tree: {}", ms(full)),
        ratio: format!(
            "{:.0}× faster",
            full.as_secs_f64() / value.as_secs_f64().max(1e-9)
        ),
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
