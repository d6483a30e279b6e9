//! `terminal.json`: defaults, the blacklist default when the key is absent, range rules,
//! errors with positions, and the system prompt's terminal section.
#![cfg(unix)]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod shell_support;

use std::sync::Arc;
use std::time::Duration;

use smallebot_agent::config::{ConfigError, TerminalSettings, terminal_rules_text};
use smallebot_application::ports::DenyAll;
use smallebot_core::entities::ToolCallStatus;
use smallebot_sandbox::{NetworkAccess, SandboxMode, SandboxSettings};
use smallebot_shell::DEFAULT_COMMAND_BLACKLIST;

use shell_support::Shell;

fn load(text: &str) -> Result<TerminalSettings, ConfigError> {
    let home = tempfile::tempdir().unwrap();
    std::fs::write(home.path().join("terminal.json"), text).unwrap();
    TerminalSettings::load(home.path())
}

#[test]
fn a_missing_file_means_defaults() {
    let home = tempfile::tempdir().unwrap();
    let settings = TerminalSettings::load(home.path()).unwrap();
    assert_eq!(settings, TerminalSettings::default());
    assert_eq!(settings.command_blacklist, DEFAULT_COMMAND_BLACKLIST);
    assert!(!settings.require_command_confirmation);
    assert_eq!(settings.confirmation_timeout, Duration::from_secs(60));
    assert_eq!(settings.command_timeout, Duration::from_secs(60));
    assert_eq!(settings.max_output_chars, 30_000);
    assert!(settings.command_whitelist.is_empty());
}

#[tokio::test]
async fn a_file_without_command_blacklist_keeps_the_defaults() {
    for text in [
        r#"{"requireCommandConfirmation": false, "commandWhitelist": ["ls"]}"#,
        r#"{"commandBlacklist": null}"#,
        "{}",
    ] {
        let settings = load(text).unwrap();
        assert_eq!(
            settings.command_blacklist, DEFAULT_COMMAND_BLACKLIST,
            "{text}"
        );
        let shell = Shell::new(settings, Arc::new(DenyAll));
        let outcome = shell.run("rm -fr /").await;
        assert_eq!(outcome.status, ToolCallStatus::Denied, "{text}");
    }
}

#[tokio::test]
async fn an_explicit_list_replaces_the_defaults_and_an_empty_one_turns_them_off() {
    let settings = load(r#"{"commandBlacklist": ["touch forbidden*"]}"#).unwrap();
    assert_eq!(settings.command_blacklist, ["touch forbidden*"]);
    let shell = Shell::new(settings, Arc::new(DenyAll));
    let outcome = shell.run("cd . && touch forbidden.txt").await;
    assert_eq!(outcome.status, ToolCallStatus::Denied);
    assert!(
        outcome.content.contains("`touch forbidden*`"),
        "{}",
        outcome.content
    );
    assert_eq!(
        shell
            .run("sudo --version >/dev/null 2>&1; echo ran")
            .await
            .status,
        ToolCallStatus::Ok
    );

    let settings = load(r#"{"commandBlacklist": []}"#).unwrap();
    assert!(settings.command_blacklist.is_empty());
    assert_eq!(settings.policy().unwrap().rule_count(), 0);
}

#[test]
fn values_are_read_and_range_checked() {
    let settings = load(
        r#"{
            "requireCommandConfirmation": true,
            "confirmationTimeoutSeconds": 15,
            "commandWhitelist": ["ls", "  ", "git status"],
            "commandTimeoutSeconds": 120,
            "maxOutputChars": 5000
        }"#,
    )
    .unwrap();
    assert!(settings.require_command_confirmation);
    assert_eq!(settings.confirmation_timeout, Duration::from_secs(15));
    assert_eq!(settings.command_whitelist, ["ls", "git status"]);
    assert_eq!(settings.command_timeout, Duration::from_secs(120));
    assert_eq!(settings.max_output_chars, 5000);

    let low = load(
        r#"{"confirmationTimeoutSeconds": 0, "commandTimeoutSeconds": -5, "maxOutputChars": 3}"#,
    )
    .unwrap();
    assert_eq!(low.confirmation_timeout, Duration::from_secs(1));
    assert_eq!(low.command_timeout, Duration::from_secs(1));
    assert_eq!(low.max_output_chars, 1000);
    let high = load(r#"{"commandTimeoutSeconds": 999999, "maxOutputChars": 99999999}"#).unwrap();
    assert_eq!(high.command_timeout, Duration::from_secs(3600));
    assert_eq!(high.max_output_chars, 1_000_000);
}

#[test]
fn an_invalid_file_is_an_error_with_its_position() {
    let err = load("{\n  \"commandTimeoutSeconds\": 10,\n  \"commandBlacklist\": [\"sudo\",]\n}")
        .unwrap_err();
    let ConfigError::Invalid {
        file, line, column, ..
    } = &err
    else {
        panic!("expected Invalid, got {err:?}");
    };
    assert!(file.ends_with("terminal.json"));
    assert_eq!((*line, *column), (3, 31));
    assert!(err.to_string().contains("terminal.json:3:31: "), "{err}");

    let err = load(r#"{"requireCommandConfirmation": "yes"}"#).unwrap_err();
    assert!(
        matches!(err, ConfigError::Invalid { line: 1, .. }),
        "{err:?}"
    );
    let err = load(r#"{"commandBlacklist": "sudo"}"#).unwrap_err();
    assert!(matches!(err, ConfigError::Invalid { .. }), "{err:?}");
}

#[test]
fn a_blacklist_rule_that_does_not_parse_is_an_error_naming_the_file() {
    let err = load(r#"{"commandBlacklist": ["sudo", "rm 'unterminated"]}"#).unwrap_err();
    assert!(matches!(err, ConfigError::Rule { .. }), "{err:?}");
    let text = err.to_string();
    assert!(text.contains("terminal.json"), "{text}");
    assert!(text.contains("rm 'unterminated"), "{text}");
}

#[test]
fn the_terminal_rules_state_the_limits_and_the_confirmation() {
    let text = terminal_rules_text(&TerminalSettings::default());
    for part in [
        "/bin/sh -c",
        "workspace",
        "60 s",
        "30000 characters",
        "beginning and the end",
        "exit code",
        "sudo",
        "ask the user",
    ] {
        assert!(text.contains(part), "missing {part:?} in:\n{text}");
    }
    assert!(!text.contains("Confirmation"), "{text}");

    let settings = TerminalSettings {
        require_command_confirmation: true,
        confirmation_timeout: Duration::from_secs(20),
        command_whitelist: vec!["ls".into()],
        command_blacklist: vec!["touch x".into()],
        command_timeout: Duration::from_secs(5),
        max_output_chars: 2000,
        sandbox: SandboxSettings {
            mode: SandboxMode::ReadOnly,
            network: NetworkAccess::Deny,
            ..SandboxSettings::default()
        },
    };
    let text = terminal_rules_text(&settings);
    for part in [
        "5 s",
        "2000 characters",
        "within 20 s",
        "`ls`",
        "`touch x`",
        "Sandbox (read-only)",
        "TCP connections are refused",
        "8192 MiB",
    ] {
        assert!(text.contains(part), "missing {part:?} in:\n{text}");
    }
    let off = terminal_rules_text(&TerminalSettings {
        command_blacklist: Vec::new(),
        ..TerminalSettings::default()
    });
    assert!(off.contains("No command blacklist"), "{off}");
}

#[test]
fn a_misspelt_confirmation_key_is_an_error_not_confirmation_off() {
    let err = load(r#"{"requireCommandConfirmaton": true}"#)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains(":1:2: unknown key \"requireCommandConfirmaton\" in the terminal settings; did you mean \"requireCommandConfirmation\"?"),
        "{err}"
    );
    let settings = load(r#"{"RequireCommandConfirmation": true}"#).unwrap();
    assert!(
        settings.require_command_confirmation,
        "keys match in any case"
    );
}

#[test]
fn the_sandbox_keys_are_read_and_checked_with_the_file_named() {
    let settings = load(
        r#"{"sandbox": "read-only", "network": "deny",
            "limits": {"cpuSeconds": 30, "processes": 64},
            "readablePaths": ["/opt/tools"], "writablePaths": ["/srv/cache"]}"#,
    )
    .unwrap();
    assert_eq!(settings.sandbox.mode, SandboxMode::ReadOnly);
    assert_eq!(settings.sandbox.network, NetworkAccess::Deny);
    assert_eq!(settings.sandbox.limits.cpu_seconds, 30);
    assert_eq!(settings.sandbox.limits.processes, 64);
    // Not given: the default.
    assert_eq!(settings.sandbox.limits.memory_mb, 8_192);
    assert_eq!(
        settings.sandbox.readable_paths,
        [std::path::PathBuf::from("/opt/tools")]
    );
    assert_eq!(
        settings.sandbox.writable_paths,
        [std::path::PathBuf::from("/srv/cache")]
    );

    for (text, expected) in [
        (r#"{"sandbox": "strict"}"#, "sandbox: unknown mode 'strict'"),
        (
            r#"{"limits": {"processes": 1}}"#,
            "limits.processes: 1 is out of range",
        ),
        (r#"{"limits": {"threads": 1}}"#, "threads"),
        (
            r#"{"sandbox": "off", "network": "deny"}"#,
            "deny needs the sandbox",
        ),
        (r#"{"readablePaths": ["rel"]}"#, "is not an absolute path"),
    ] {
        let error = load(text).unwrap_err().to_string();
        assert!(error.contains("terminal.json"), "{text}: {error}");
        assert!(error.contains(expected), "{text}: {error}");
    }
}
