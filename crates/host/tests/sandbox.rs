//! `ExecuteCommand` in the sandbox, run through this binary's helper mode: an attack
//! table (each case refused, nothing changed), the work that must still succeed, the
//! limits (a fork bomb, a memory hog, a CPU spinner), `network: deny` and the hidden
//! API key variables. (Machines without Landlock: `sandbox_without_landlock.rs`.)
//!
//! Needs Landlock; without it the tests skip with one line, and fail where
//! `SMALLEBOT_REQUIRE_LANDLOCK` is set (CI).
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "sandbox/limits.rs"]
mod limits;
#[path = "sandbox/reach.rs"]
mod reach;
mod sandbox_support;

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use smallebot_agent::config::TerminalSettings;
use smallebot_agent::tools::ToolRegistry;
use smallebot_application::ports::{DenyAll, ToolOutcome};
use smallebot_core::entities::ToolCallStatus;
use smallebot_sandbox::{
    CommandLimits, CommandSandbox, NetworkAccess, SandboxMode, SandboxSettings, probe,
};

use sandbox_support::{SECRET, call, helper, landlock_or_skip, shell};

/// A home with a database, configuration and two users' workspaces, and a shell tool
/// for the user `alice` confined by `settings`.
struct Fixture {
    _dir: tempfile::TempDir,
    home: PathBuf,
    workspace: PathBuf,
    registry: ToolRegistry,
}

impl Fixture {
    fn new(sandbox: SandboxSettings) -> Self {
        Self::with_timeout(sandbox, Duration::from_secs(20))
    }

    fn with_timeout(sandbox: SandboxSettings, timeout: Duration) -> Self {
        let dir = tempfile::tempdir().unwrap();
        let home = dir.path().join("home");
        let workspace = home.join("workspace/users/alice");
        let other = home.join("workspace/users/bob");
        std::fs::create_dir_all(&workspace).unwrap();
        std::fs::create_dir_all(&other).unwrap();
        std::fs::create_dir_all(home.join("tasks")).unwrap();
        for file in ["smallebot.db", "agent.json", "tasks/list.json"] {
            std::fs::write(home.join(file), SECRET).unwrap();
        }
        std::fs::write(other.join("secret.txt"), SECRET).unwrap();
        std::fs::write(workspace.join("mine.txt"), "mine\n").unwrap();
        let settings = TerminalSettings {
            command_timeout: timeout,
            sandbox: sandbox.clone(),
            ..TerminalSettings::default()
        };
        let sandbox = CommandSandbox::new(sandbox, helper(), &home).unwrap();
        let registry = shell(&workspace, settings, sandbox, Arc::new(DenyAll));
        Self {
            _dir: dir,
            home,
            workspace,
            registry,
        }
    }

    async fn run(&self, command: &str) -> ToolOutcome {
        call(&self.registry, command).await
    }

    /// Every file of the home outside the workspace with its content, to compare
    /// before and after.
    fn snapshot(&self) -> Vec<(PathBuf, Vec<u8>)> {
        fn walk(dir: &Path, skip: &Path, out: &mut Vec<(PathBuf, Vec<u8>)>) {
            for entry in std::fs::read_dir(dir).unwrap().flatten() {
                let path = entry.path();
                let meta = std::fs::symlink_metadata(&path).unwrap();
                if path == skip {
                    continue;
                }
                if meta.is_dir() {
                    walk(&path, skip, out);
                } else {
                    out.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
                }
            }
        }
        let mut files = Vec::new();
        walk(&self.home, &self.workspace, &mut files);
        files.sort();
        files
    }
}

fn workspace_write() -> SandboxSettings {
    SandboxSettings::default()
}

/// `/usr/bin/python3`, if the system has one (a python from the user's home, such as
/// pyenv's, is out of reach in the sandbox).
fn python() -> Option<&'static str> {
    Path::new("/usr/bin/python3")
        .exists()
        .then_some("/usr/bin/python3")
}

#[tokio::test]
async fn the_attack_table_is_refused_and_changes_nothing() {
    if !landlock_or_skip() {
        return;
    }
    let f = Fixture::new(workspace_write());
    let home = f.home.display().to_string();
    let user_home = std::env::var("HOME").unwrap_or_else(|_| "/root".to_owned());
    let outside = format!("/tmp/smallebot-escape-{}", std::process::id());
    let etc_file = format!("/etc/smallebot-escape-{}", std::process::id());
    let mut cases = vec![
        format!("cat {home}/smallebot.db"),
        format!("cat {home}/agent.json"),
        format!("cat {home}/tasks/list.json"),
        "cat ../bob/secret.txt".to_owned(),
        format!("cat {home}/workspace/users/bob/secret.txt"),
        "ls /root".to_owned(),
        format!("ls -a {user_home}/.ssh {user_home}"),
        format!("echo x > {outside}"),
        format!("echo x > {etc_file}"),
        format!("echo {SECRET}-new > {home}/new.txt"),
        format!("echo changed > {home}/agent.json"),
        "ln -s / root && cat root/etc/shadow".to_owned(),
        "cd .. && cat bob/secret.txt".to_owned(),
        "cd ../../.. && cat smallebot.db".to_owned(),
        "cat $(echo ../bob/secret.txt)".to_owned(),
        "cat > ../bob/secret.txt <<EOF\nhacked\nEOF".to_owned(),
        format!("sh -c 'cat {home}/smallebot.db'"),
        "cat /etc/shadow".to_owned(),
        format!("rm -f {home}/smallebot.db"),
    ];
    if let Some(python) = python() {
        cases.push(format!(
            "{python} -c \"print(open('{home}/agent.json').read())\""
        ));
        cases.push(format!("{python} -c \"open('{home}/x', 'w').write('x')\""));
    }
    let before = f.snapshot();
    for command in &cases {
        let outcome = f.run(command).await;
        assert_ne!(
            outcome.status,
            ToolCallStatus::Ok,
            "{command} ran: {}",
            outcome.content
        );
        assert!(
            !outcome.content.contains(SECRET) && !outcome.content.contains("root:"),
            "{command} read a secret: {}",
            outcome.content
        );
        assert!(
            outcome.content.contains("Permission denied")
                || outcome.content.contains("PermissionError")
                || outcome.content.contains("Operation not permitted"),
            "{command}: not refused by the sandbox: {}",
            outcome.content
        );
        assert!(
            outcome
                .content
                .contains("sandbox: workspace-write, network allowed]"),
            "{command}: the result does not name the sandbox: {}",
            outcome.content
        );
    }
    assert_eq!(f.snapshot(), before, "the home changed");
    assert!(!Path::new(&outside).exists());
    assert!(!Path::new(&etc_file).exists());
}

#[tokio::test]
async fn allowed_work_still_works_in_the_workspace() {
    if !landlock_or_skip() {
        return;
    }
    let f = Fixture::new(workspace_write());
    let cases: Vec<(&str, &str)> = vec![
        (
            "printf '#include <stdio.h>\\nint main(void){puts(\"built and ran\");return 0;}\\n' > hello.c \
             && cc hello.c -o hello && ./hello",
            "built and ran",
        ),
        (
            "git init -q repo && cd repo && git status --short && echo git-ok",
            "git-ok",
        ),
        ("echo abc | tr a-z A-Z", "ABC"),
        ("echo data > out.txt && cat out.txt mine.txt", "data\nmine"),
        (
            "ls /usr/share | head -n 1 >/dev/null && echo share-ok",
            "share-ok",
        ),
        (
            "echo scratch > \"$TMPDIR/t\" && cat \"$TMPDIR/t\"",
            "scratch",
        ),
        // No capabilities, even for root: nothing overrides file permissions.
        (
            "grep -E '^Cap(Inh|Prm|Eff)' /proc/self/status",
            "CapInh:\t0000000000000000\nCapPrm:\t0000000000000000\nCapEff:\t0000000000000000",
        ),
    ];
    for (command, expected) in cases {
        let outcome = f.run(command).await;
        assert_eq!(
            outcome.status,
            ToolCallStatus::Ok,
            "{command}: {}",
            outcome.content
        );
        assert!(
            outcome.content.contains(expected),
            "{command}: {}",
            outcome.content
        );
    }
    assert_eq!(
        std::fs::read_to_string(f.workspace.join("out.txt")).unwrap(),
        "data\n"
    );
    assert!(f.workspace.join("repo/.git").is_dir());
}

#[tokio::test]
async fn the_private_temporary_directory_is_removed_afterwards() {
    if !landlock_or_skip() {
        return;
    }
    let f = Fixture::new(workspace_write());
    let outcome = f.run("touch \"$TMPDIR/left\"; echo \"$TMPDIR\"").await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    let temp = outcome.content.lines().next().unwrap();
    assert!(temp.contains("smallebot-cmd-"), "{temp}");
    assert!(!Path::new(temp).exists(), "{temp} is still there");
}

#[tokio::test]
async fn read_only_mode_writes_nothing_but_its_temporary_directory() {
    if !landlock_or_skip() {
        return;
    }
    let f = Fixture::new(SandboxSettings {
        mode: SandboxMode::ReadOnly,
        ..SandboxSettings::default()
    });
    let refused = f.run("echo x > new.txt").await;
    assert_ne!(refused.status, ToolCallStatus::Ok, "{}", refused.content);
    assert!(
        refused.content.contains("Permission denied"),
        "{}",
        refused.content
    );
    assert!(
        refused.content.contains("sandbox: read-only"),
        "{}",
        refused.content
    );
    assert!(!f.workspace.join("new.txt").exists());
    let allowed = f
        .run("cat mine.txt && echo t > \"$TMPDIR/t\" && echo wrote")
        .await;
    assert_eq!(allowed.status, ToolCallStatus::Ok, "{}", allowed.content);
    assert!(
        allowed.content.contains("mine\nwrote"),
        "{}",
        allowed.content
    );
}
