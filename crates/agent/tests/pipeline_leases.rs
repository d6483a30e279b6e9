//! Turn leases in the pipeline: two services on one database stand for two processes.
//! One running turn per conversation across them, recovery of abandoned turns only,
//! and the heartbeat of a running turn.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use smallebot_agent::assembly::AgentAssembly;
use smallebot_application::pipeline::LeaseSettings;
use smallebot_application::ports::ProcessProbe;
use smallebot_application::{ConversationService, PipelineError, SendOptions};
use smallebot_core::entities::{LeaseOwner, NewTurn, StartedTurn, TurnStatus};
use smallebot_core::repository::{HistoryRepository, TurnRepository};
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{Gate, ScriptedResponse, TestModel};

/// Processes on "this host": only the listed pids exist.
struct Alive(Vec<u32>);

impl ProcessProbe for Alive {
    fn exists(&self, pid: u32) -> bool {
        self.0.contains(&pid)
    }
}

fn owner(pid: u32) -> LeaseOwner {
    LeaseOwner {
        pid,
        host: "box".into(),
        started_at: chrono::SubsecRound::trunc_subsecs(chrono::Utc::now(), 3),
    }
}

/// A service running as process `pid`, where the processes in `alive` exist.
fn service(
    store: &SqliteStore,
    server: &TestModel,
    pid: u32,
    alive: &[u32],
    heartbeat_every: Duration,
) -> Arc<ConversationService> {
    let mut lease = LeaseSettings::new(owner(pid), Arc::new(Alive(alive.to_vec())));
    lease.heartbeat_every = heartbeat_every;
    let agent = AgentAssembly::new(
        Arc::new(store.clone()),
        ChatEndpoint::new(server.base_url(), "m"),
    )
    .skill_path("missing-skill.md".into())
    .lease(lease)
    .build()
    .unwrap();
    Arc::new(agent.service)
}

async fn setup() -> (tempfile::TempDir, SqliteStore, TestModel) {
    let dir = tempfile::tempdir().unwrap();
    let store = SqliteStore::open(&dir.path().join("db.sqlite"))
        .await
        .unwrap();
    let server = TestModel::start().await.unwrap();
    (dir, store, server)
}

#[tokio::test]
async fn a_turn_running_in_another_live_process_makes_the_conversation_busy() {
    let (_dir, store, server) = setup().await;
    // The first answer is held until the other process's attempts are refused.
    let answer = Gate::new();
    let held = answer.clone();
    server.respond_with(move |_| ScriptedResponse::text("slow answer").hold_until(&held));
    let a = service(&store, &server, 1, &[1, 2], Duration::from_secs(10));
    let b = service(&store, &server, 2, &[1, 2], Duration::from_secs(10));
    let c = a.create_conversation("u").await.unwrap();
    let running = {
        let a = Arc::clone(&a);
        tokio::spawn(async move { a.send(c.id, "first", SendOptions::default()).await })
    };
    server
        .wait_for_requests(1, Duration::from_secs(10))
        .await
        .unwrap();

    let refused = b.send(c.id, "second", SendOptions::default()).await;
    let Err(PipelineError::TurnRunning { owner, .. }) = &refused else {
        panic!("{refused:?}")
    };
    assert_eq!(owner.as_deref(), Some("process 1 on box"));
    assert!(matches!(
        b.compact(c.id, None).await,
        Err(PipelineError::TurnRunning { .. })
    ));
    assert!(matches!(
        b.delete_conversation(c.id).await,
        Err(PipelineError::TurnRunning { .. })
    ));
    assert_eq!(b.recover_interrupted_turns().await.unwrap(), 0);
    // Nothing of the refused send was stored.
    let rows = store.rows_after(c.id, 0).await.unwrap();
    assert_eq!(rows.len(), 1, "only the first question: {rows:?}");

    answer.open();
    let first = running.await.unwrap().unwrap();
    assert_eq!(first.status, TurnStatus::Completed);
    let second = b
        .send(c.id, "second", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(second.status, TurnStatus::Completed);
}

#[tokio::test]
async fn only_turns_whose_owner_is_gone_or_silent_are_recovered() {
    let (_dir, store, server) = setup().await;
    server.respond_with(|_| ScriptedResponse::text("ok"));
    let me = service(&store, &server, 10, &[10, 11], Duration::from_secs(10));
    let dead = me.create_conversation("u").await.unwrap();
    let live = me.create_conversation("u").await.unwrap();
    let silent = me.create_conversation("u").await.unwrap();
    let StartedTurn {
        turn: dead_turn, ..
    } = store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(dead.id, "dead", &owner(99))
        })
        .await
        .unwrap();
    let StartedTurn {
        turn: live_turn, ..
    } = store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(live.id, "live", &owner(11))
        })
        .await
        .unwrap();
    let mut far = owner(11);
    far.host = "elsewhere".into();
    let StartedTurn {
        turn: silent_turn, ..
    } = store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(silent.id, "silent", &far)
        })
        .await
        .unwrap();
    let long_ago = chrono::Utc::now() - chrono::Duration::minutes(5);
    store.heartbeat(silent_turn.id, long_ago).await.unwrap();

    assert_eq!(me.recover_interrupted_turns().await.unwrap(), 2);
    let status = async |id| store.get_turn(id).await.unwrap().unwrap().status;
    assert_eq!(status(dead_turn.id).await, TurnStatus::Interrupted);
    assert_eq!(status(silent_turn.id).await, TurnStatus::Interrupted);
    assert_eq!(status(live_turn.id).await, TurnStatus::Running);

    // A send finds the live one busy; an abandoned one would have been taken over.
    assert!(matches!(
        me.send(live.id, "hi", SendOptions::default()).await,
        Err(PipelineError::TurnRunning { .. })
    ));
    let StartedTurn { turn: gone, .. } = store
        .start_turn_in_context(&NewTurn {
            token_count: 1,
            ..NewTurn::new(dead.id, "dead again", &owner(98))
        })
        .await
        .unwrap();
    let outcome = me
        .send(dead.id, "taken over", SendOptions::default())
        .await
        .unwrap();
    assert_eq!(outcome.status, TurnStatus::Completed);
    assert_eq!(status(gone.id).await, TurnStatus::Interrupted);
}

#[tokio::test]
async fn a_running_turn_renews_its_lease() {
    let (_dir, store, server) = setup().await;
    // The answer is held until a renewal was seen.
    let answer = Gate::new();
    let held = answer.clone();
    server.respond_with(move |_| ScriptedResponse::text("slow").hold_until(&held));
    let a = service(&store, &server, 1, &[1], Duration::from_millis(50));
    let c = a.create_conversation("u").await.unwrap();
    let running = {
        let a = Arc::clone(&a);
        tokio::spawn(async move { a.send(c.id, "q", SendOptions::default()).await })
    };
    server
        .wait_for_requests(1, Duration::from_secs(10))
        .await
        .unwrap();
    let turn = store.running_turn(c.id).await.unwrap().unwrap();
    let lease = turn.lease.unwrap();
    // Heartbeats every 50 ms: a later one is seen within the deadline.
    let deadline = Instant::now() + Duration::from_secs(10);
    let renewed = loop {
        let now = store
            .running_turn(c.id)
            .await
            .unwrap()
            .unwrap()
            .lease
            .unwrap();
        if now.heartbeat_at > lease.heartbeat_at {
            break now;
        }
        assert!(Instant::now() < deadline, "never renewed: {lease:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    };
    assert_eq!(renewed.owner, lease.owner);
    answer.open();
    running.await.unwrap().unwrap();
    assert_eq!(store.running_turn(c.id).await.unwrap(), None);
}
