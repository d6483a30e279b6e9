//! The limits of a confined command: a fork bomb, a memory hog, a CPU spinner.

use super::*;

#[tokio::test]
async fn a_fork_bomb_and_a_memory_hog_end_within_their_limits_and_the_host_goes_on() {
    if !landlock_or_skip() {
        return;
    }
    let f = Fixture::with_timeout(
        SandboxSettings {
            limits: CommandLimits {
                processes: 32,
                memory_mb: 512,
                ..CommandLimits::default()
            },
            ..SandboxSettings::default()
        },
        Duration::from_secs(15),
    );
    let started = Instant::now();
    // Not a spelling the blacklist knows (it refuses `:(){ :|:& };:` and its
    // renamings): the limit has to stop this one.
    let bomb = f.run("while :; do sleep 30 & done").await;
    assert_ne!(bomb.status, ToolCallStatus::Ok, "{}", bomb.content);
    assert!(
        started.elapsed() < Duration::from_secs(14),
        "{}",
        bomb.content
    );
    assert!(
        bomb.content.contains("fork") || bomb.content.contains("Resource temporarily unavailable"),
        "the process limit did not stop the bomb: {}",
        bomb.content
    );
    if let Some(python) = python() {
        let hog = f
            .run(&format!(
                "{python} -c \"b = bytearray(1 << 33); print('allocated')\""
            ))
            .await;
        assert_ne!(hog.status, ToolCallStatus::Ok, "{}", hog.content);
        assert!(hog.content.contains("MemoryError"), "{}", hog.content);
        assert!(!hog.content.contains("allocated"), "{}", hog.content);
    }
    let after = f.run("echo still serving").await;
    assert_eq!(after.status, ToolCallStatus::Ok, "{}", after.content);
    assert!(after.content.starts_with("still serving"));
}

#[tokio::test]
async fn cpu_time_is_limited() {
    if !landlock_or_skip() {
        return;
    }
    let f = Fixture::with_timeout(
        SandboxSettings {
            limits: CommandLimits {
                cpu_seconds: 1,
                ..CommandLimits::default()
            },
            ..SandboxSettings::default()
        },
        Duration::from_secs(30),
    );
    let started = Instant::now();
    let outcome = f.run("while :; do :; done").await;
    assert!(
        started.elapsed() < Duration::from_secs(20),
        "{}",
        outcome.content
    );
    assert_eq!(outcome.status, ToolCallStatus::Error, "{}", outcome.content);
    assert!(
        !outcome.content.contains("timed out"),
        "{}",
        outcome.content
    );
}
