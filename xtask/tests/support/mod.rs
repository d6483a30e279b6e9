//! Reading the product's sources for the shape rules: every `.rs` file under
//! `crates/<name>/src`, without comment lines, test files or the trailing
//! `#[cfg(test)]` module (test data may do what the program must not).
#![allow(dead_code)]

use std::path::{Path, PathBuf};

/// The repository's root.
pub fn workspace_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .unwrap()
        .to_path_buf()
}

/// Every crate under `crates/` but the testkit (it plays the model in tests, so it names
/// tools and prints as a server does); xtask is not under `crates/`.
pub fn product_crates() -> Vec<String> {
    let mut crates: Vec<String> = std::fs::read_dir(workspace_root().join("crates"))
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_str().unwrap().to_owned())
        .filter(|name| name != "testkit")
        .collect();
    crates.sort();
    crates
}

/// Every `.rs` file under `dir`, into `out`.
pub fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap() {
        let path = entry.unwrap().path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

/// Whether a file holds only tests (`tests.rs`, `*_tests.rs`, test support).
pub fn is_test_file(path: &Path) -> bool {
    let name = path
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or_default();
    name.ends_with("tests.rs") || name.starts_with("test_")
}

/// The product code of every `.rs` file under `crates/<name>/src` of `crates`:
/// (path relative to the repository, code) with comment lines, test files and the
/// trailing `#[cfg(test)]` module left out.
pub fn product_sources(crates: &[&str]) -> Vec<(String, String)> {
    let root = workspace_root();
    let mut files = Vec::new();
    for name in crates {
        rust_files(&root.join("crates").join(name).join("src"), &mut files);
    }
    files.sort();
    files
        .into_iter()
        .filter(|path| !is_test_file(path))
        .map(|path| {
            let text = std::fs::read_to_string(&path).unwrap();
            (
                path.strip_prefix(&root).unwrap().display().to_string(),
                product_code(&text),
            )
        })
        .collect()
}

/// `text` without its comment lines and its trailing `#[cfg(test)]` module.
pub fn product_code(text: &str) -> String {
    let lines: Vec<&str> = text.lines().collect();
    let test_module = lines.windows(2).position(|pair| {
        pair[0].trim() == "#[cfg(test)]" && pair[1].trim_start().starts_with("mod ")
    });
    let code: Vec<&str> = lines[..test_module.unwrap_or(lines.len())]
        .iter()
        .copied()
        .filter(|l| !l.trim_start().starts_with("//"))
        .collect();
    code.join("\n")
}
