//! Which directories a confined command may read and write, and how a directory that
//! holds something it must not reach (the home directory, `/etc/shadow`) is split into
//! the entries around it.

use std::path::{Path, PathBuf};

/// What every command may read: the system's programs, libraries and settings.
/// `/proc` is readable, but Landlock keeps a confined process from reading other
/// processes' memory or environment there (ptrace rules).
pub(crate) const SYSTEM_READ: &[&str] = &[
    "/usr",
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/etc",
    "/opt",
    "/proc",
    "/sys",
    "/nix/store",
    "/run/systemd/resolve",
    "/run/resolvconf",
];

/// Devices every command may read and write (`/dev` itself only listed).
pub(crate) const DEVICES: &[&str] = &[
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// Files under the readable system directories that stay out of reach: password
/// hashes, sudo rules, the machine's SSH host keys and TLS private keys.
pub(crate) const SYSTEM_SECRETS: &[&str] = &[
    "/etc/shadow",
    "/etc/shadow-",
    "/etc/gshadow",
    "/etc/gshadow-",
    "/etc/sudoers",
    "/etc/sudoers.d",
    "/etc/security/opasswd",
    "/etc/ssl/private",
    "/etc/ssh/ssh_host_rsa_key",
    "/etc/ssh/ssh_host_ecdsa_key",
    "/etc/ssh/ssh_host_ed25519_key",
    "/etc/ssh/ssh_host_dsa_key",
];

/// The paths to grant so that everything under `root` is reachable except what lies
/// under one of `excluded`: `root` itself when nothing excluded is inside it, nothing
/// when `root` is itself inside an excluded path, else the entries of `root` (from
/// `list`) treated the same way. All paths are compared as given (canonicalize first).
pub(crate) fn split_around(
    root: &Path,
    excluded: &[PathBuf],
    list: &dyn Fn(&Path) -> Vec<PathBuf>,
) -> Vec<PathBuf> {
    if excluded.iter().any(|e| root.starts_with(e)) {
        return Vec::new();
    }
    if !excluded.iter().any(|e| e.starts_with(root)) {
        return vec![root.to_path_buf()];
    }
    list(root)
        .into_iter()
        .flat_map(|entry| split_around(&entry, excluded, list))
        .collect()
}

/// The entries of a directory (none when it cannot be read or is not a directory).
pub(crate) fn list_dir(dir: &Path) -> Vec<PathBuf> {
    std::fs::read_dir(dir)
        .map(|entries| entries.flatten().map(|e| e.path()).collect())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree(dir: &Path) -> Vec<PathBuf> {
        let names: &[&str] = match dir.to_str() {
            Some("/etc") => &["/etc/passwd", "/etc/shadow", "/etc/ssh"],
            Some("/etc/ssh") => &["/etc/ssh/ssh_config", "/etc/ssh/ssh_host_rsa_key"],
            Some("/opt") => &["/opt/tools", "/opt/bot"],
            Some("/opt/bot") => &["/opt/bot/home", "/opt/bot/bin"],
            _ => &[],
        };
        names.iter().map(PathBuf::from).collect()
    }

    #[test]
    fn split_table() {
        let p = |s: &str| PathBuf::from(s);
        let cases: Vec<(&str, Vec<PathBuf>, Vec<PathBuf>)> = vec![
            ("/usr", vec![p("/etc/shadow")], vec![p("/usr")]),
            (
                "/etc",
                vec![p("/etc/shadow"), p("/etc/ssh/ssh_host_rsa_key")],
                vec![p("/etc/passwd"), p("/etc/ssh/ssh_config")],
            ),
            (
                "/opt",
                vec![p("/opt/bot/home")],
                vec![p("/opt/tools"), p("/opt/bot/bin")],
            ),
            ("/opt/bot/home/workspace", vec![p("/opt/bot/home")], vec![]),
            ("/opt/bot/home", vec![p("/opt/bot/home")], vec![]),
            // Sharing a prefix of characters is not being inside.
            (
                "/etc/shadowsocks",
                vec![p("/etc/shadow")],
                vec![p("/etc/shadowsocks")],
            ),
        ];
        for (root, excluded, expected) in cases {
            assert_eq!(
                split_around(Path::new(root), &excluded, &tree),
                expected,
                "{root}"
            );
        }
    }
}
