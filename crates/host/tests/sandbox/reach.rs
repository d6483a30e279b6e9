//! What a confined command reaches beyond files: the network (`network: deny`) and
//! the environment (only the allow list, never an API key).

use super::*;

#[tokio::test]
async fn network_deny_blocks_a_tcp_connect_and_allow_does_not() {
    if !landlock_or_skip() {
        return;
    }
    if !matches!(
        probe(),
        smallebot_sandbox::LandlockSupport::Available { tcp: true }
    ) {
        assert!(
            std::env::var_os("SMALLEBOT_REQUIRE_LANDLOCK").is_none(),
            "no TCP rules"
        );
        eprintln!("SKIPPED: this kernel's Landlock has no TCP rules");
        return;
    }
    let Some(python) = python() else {
        eprintln!("SKIPPED: no /usr/bin/python3 to connect with");
        return;
    };
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port();
    let connect = format!(
        "{python} -c \"import socket; socket.create_connection(('127.0.0.1', {port}), 5); print('connected')\""
    );
    let denied = Fixture::new(SandboxSettings {
        network: NetworkAccess::Deny,
        ..SandboxSettings::default()
    });
    let outcome = denied.run(&connect).await;
    assert_ne!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    assert!(
        outcome.content.contains("PermissionError"),
        "{}",
        outcome.content
    );
    assert!(
        outcome.content.contains("network denied"),
        "{}",
        outcome.content
    );
    let allowed = Fixture::new(workspace_write());
    let outcome = allowed.run(&connect).await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    assert!(outcome.content.contains("connected"), "{}", outcome.content);
}

#[tokio::test]
async fn only_the_allow_list_reaches_a_confined_commands_environment() {
    if !landlock_or_skip() {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join("workspace")).unwrap();
    let sandbox = CommandSandbox::new(SandboxSettings::default(), helper(), &home).unwrap();
    let registry = shell(
        &home.join("workspace"),
        TerminalSettings::default(),
        sandbox,
        Arc::new(DenyAll),
    );
    let outcome = call(
        &registry,
        "echo \"name=[$CARGO_PKG_NAME] dir=[$CARGO_MANIFEST_DIR] path=[$PATH] home=[$HOME]\"",
    )
    .await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    // Cargo sets both for the test: neither is on the allow-list.
    assert!(outcome.content.contains("name=[]"), "{}", outcome.content);
    assert!(outcome.content.contains("dir=[]"), "{}", outcome.content);
    assert!(!outcome.content.contains("path=[]"), "{}", outcome.content);
    assert!(
        outcome.content.contains("smallebot-cmd-"),
        "{}",
        outcome.content
    );
}
