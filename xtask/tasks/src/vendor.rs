//! `cargo xtask vendor`: refreshes the vendored browser libraries from the npm registry
//! (through `npm pack`, so npm's own client and registry settings apply) — the page's
//! into `crates/web/assets/vendor/`, the browser tests' into
//! `crates/host/tests/web/fixtures/` — each beside its licence. The versions are pinned here;
//! raise one, run this, and look at the page.

use std::path::{Path, PathBuf};
use std::process::Command;

use clap::Args;

/// One vendored package: what is taken from it, and where it goes.
struct Vendored {
    package: &'static str,
    version: &'static str,
    /// The folder it goes to, from the workspace's root.
    into: &'static str,
    /// (path inside the package, file name in `into`)
    files: &'static [(&'static str, &'static str)],
}

const VENDORED: &[Vendored] = &[
    Vendored {
        // highlight.js's ES module build with its common languages (the code blocks).
        package: "@highlightjs/cdn-assets",
        version: "11.11.1",
        into: "crates/web/assets/vendor",
        files: &[
            ("es/highlight.min.js", "highlight.min.js"),
            ("LICENSE", "highlight.LICENSE"),
        ],
    },
    Vendored {
        // axe-core: the accessibility checks of the browser tests (never served).
        package: "axe-core",
        version: "4.10.3",
        into: "crates/host/tests/web/fixtures",
        files: &[("axe.min.js", "axe.min.js"), ("LICENSE", "axe.LICENSE")],
    },
];

/// `cargo xtask vendor` takes no options.
#[derive(Debug, Args)]
pub struct VendorArgs {}

/// Fetches each pinned package and copies its files into the assets.
pub async fn run(_args: VendorArgs) -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    let scratch =
        tempfile::tempdir().map_err(|e| format!("cannot make a temporary directory: {e}"))?;
    for vendored in VENDORED {
        let unpacked = fetch(vendored, scratch.path())?;
        let target = root.join(vendored.into);
        for (inside, name) in vendored.files {
            let from = unpacked.join(inside);
            std::fs::copy(&from, target.join(name)).map_err(|e| {
                format!(
                    "cannot copy {} to {}: {e}",
                    from.display(),
                    target.join(name).display()
                )
            })?;
            println!(
                "{}@{}: {inside} -> assets/vendor/{name}",
                vendored.package, vendored.version
            );
        }
    }
    Ok(())
}

/// `npm pack`s the package into `dir` and unpacks it; the unpacked `package/` folder.
fn fetch(vendored: &Vendored, dir: &Path) -> Result<PathBuf, String> {
    let spec = format!("{}@{}", vendored.package, vendored.version);
    let packed = Command::new("npm")
        .args(["pack", "--silent", &spec])
        .current_dir(dir)
        .output()
        .map_err(|e| format!("cannot run npm (is Node.js installed?): {e}"))?;
    if !packed.status.success() {
        return Err(format!(
            "npm pack {spec} failed: {}",
            String::from_utf8_lossy(&packed.stderr)
        ));
    }
    let tarball = String::from_utf8_lossy(&packed.stdout).trim().to_owned();
    let unpack_dir = dir.join(vendored.package.replace(['/', '@'], "_"));
    std::fs::create_dir_all(&unpack_dir)
        .map_err(|e| format!("cannot make {}: {e}", unpack_dir.display()))?;
    let unpacked = Command::new("tar")
        .arg("xzf")
        .arg(dir.join(&tarball))
        .arg("-C")
        .arg(&unpack_dir)
        .status()
        .map_err(|e| format!("cannot run tar: {e}"))?;
    if !unpacked.success() {
        return Err(format!("tar could not unpack {tarball}"));
    }
    Ok(unpack_dir.join("package"))
}
