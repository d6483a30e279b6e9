//! `ExecuteCommand` where the kernel has no Landlock (simulated with
//! `CommandSandbox::with_support`): a command runs unconfined only with the person's
//! consent, `off` asks nothing, and `network: deny` is an error at start.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod sandbox_support;

use std::path::Path;
use std::sync::Arc;
use std::time::Duration;

use smallebot_agent::config::TerminalSettings;
use smallebot_agent::tools::ToolRegistry;
use smallebot_application::ports::{CommandConfirmer, ConfirmationRequest};
use smallebot_core::entities::ToolCallStatus;
use smallebot_sandbox::{
    CommandSandbox, LandlockSupport, NetworkAccess, SandboxMode, SandboxSettings,
};

use sandbox_support::{SECRET, call, helper, shell};

/// A confirmer recording whether each question said "unconfined".
struct Consent {
    answer: bool,
    asked: std::sync::Mutex<Vec<(String, bool)>>,
}

impl Consent {
    fn answering(answer: bool) -> Arc<Self> {
        Arc::new(Self {
            answer,
            asked: std::sync::Mutex::default(),
        })
    }
}

#[async_trait::async_trait]
impl CommandConfirmer for Consent {
    async fn confirm(&self, request: &ConfirmationRequest<'_>, _timeout: Duration) -> bool {
        self.asked
            .lock()
            .unwrap()
            .push((request.command.to_owned(), request.unconfined));
        self.answer
    }
}

/// A shell tool in `home/workspace` as on a kernel without Landlock.
fn without_landlock(home: &Path, sandbox: SandboxSettings, consent: Arc<Consent>) -> ToolRegistry {
    let support = LandlockSupport::Unavailable("simulated".to_owned());
    let sandbox = CommandSandbox::with_support(sandbox, helper(), home, support).unwrap();
    assert!(sandbox.summary().contains("NOT ENFORCED") || !sandbox.needs_consent());
    shell(
        &home.join("workspace"),
        TerminalSettings::default(),
        sandbox,
        consent,
    )
}

#[tokio::test]
async fn without_landlock_a_command_runs_unconfined_only_with_consent() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    std::fs::create_dir_all(home.join("workspace")).unwrap();
    std::fs::write(home.join("agent.json"), SECRET).unwrap();
    let read = format!("cat {}/agent.json", home.display());

    let declined = Consent::answering(false);
    let registry = without_landlock(&home, SandboxSettings::default(), declined.clone());
    let outcome = call(&registry, &read).await;
    assert_eq!(
        outcome.status,
        ToolCallStatus::Denied,
        "{}",
        outcome.content
    );
    assert!(
        outcome.content.contains("has no Landlock"),
        "{}",
        outcome.content
    );
    assert!(!outcome.content.contains(SECRET));
    assert_eq!(*declined.asked.lock().unwrap(), [(read.clone(), true)]);

    let allowed = Consent::answering(true);
    let registry = without_landlock(&home, SandboxSettings::default(), allowed.clone());
    let outcome = call(&registry, &read).await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    assert!(outcome.content.contains(SECRET), "{}", outcome.content);
    assert!(
        outcome.content.contains("sandbox: none (no Landlock"),
        "{}",
        outcome.content
    );

    // `off` chosen explicitly: no question.
    let off = Consent::answering(false);
    let settings = SandboxSettings {
        mode: SandboxMode::Off,
        ..SandboxSettings::default()
    };
    let registry = without_landlock(&home, settings, off.clone());
    let outcome = call(&registry, "echo fine").await;
    assert_eq!(outcome.status, ToolCallStatus::Ok, "{}", outcome.content);
    assert!(
        outcome.content.ends_with("sandbox: off]"),
        "{}",
        outcome.content
    );
    assert!(off.asked.lock().unwrap().is_empty());
}

#[test]
fn without_tcp_rules_network_deny_is_an_error_at_start() {
    let settings = SandboxSettings {
        network: NetworkAccess::Deny,
        ..SandboxSettings::default()
    };
    for support in [
        LandlockSupport::Unavailable("simulated".to_owned()),
        LandlockSupport::Available { tcp: false },
    ] {
        let error =
            CommandSandbox::with_support(settings.clone(), helper(), Path::new("/x"), support)
                .unwrap_err()
                .to_string();
        assert!(error.contains("cannot refuse TCP"), "{error}");
        assert!(error.contains("\"network\": \"allow\""), "{error}");
    }
}
