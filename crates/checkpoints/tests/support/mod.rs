//! What the capture tests share: a workspace in a temporary folder with its content
//! store, and the changes of a capture as comparable tuples.

#![allow(dead_code)]

use std::fs;

use smallebot_checkpoints::{ChangeKind, FolderStore, IgnoreRules, Limits, Workspace};

pub type Result<T = ()> = std::result::Result<T, Box<dyn std::error::Error>>;

pub fn setup(limits: Limits) -> Result<(tempfile::TempDir, Workspace, FolderStore)> {
    let dir = tempfile::tempdir()?;
    fs::create_dir(dir.path().join("ws"))?;
    let store = FolderStore::open(&dir.path().join("contents"))?;
    let ws = Workspace::open(
        &dir.path().join("ws"),
        IgnoreRules::with_defaults::<&str>(&[], None)?,
        limits,
    )?;
    Ok((dir, ws, store))
}

pub fn kinds(
    capture: &smallebot_checkpoints::Capture,
) -> Vec<(String, ChangeKind, Option<String>)> {
    capture
        .changes
        .iter()
        .map(|c| (c.path.clone(), c.kind, c.from.clone()))
        .collect()
}

pub fn ws_path(dir: &tempfile::TempDir, rel: &str) -> std::path::PathBuf {
    dir.path().join("ws").join(rel)
}
