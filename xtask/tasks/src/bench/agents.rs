//! Sub-agents in parallel: a turn whose first step delegates to 8 sub-agents at once,
//! each making 3 tool calls before it answers, against a testkit model that answers
//! every request after 50 ms — beside the same turn delegating to one sub-agent. With
//! `maxParallelAgents` 8 the eight run side by side, so the turn should take hardly
//! longer than with one. The host's own time is measured as in the overhead benchmark:
//! each turn's model requests are sent again raw, in the same order and with the same
//! parallelism, right after it; what the turn took beyond them is the host's.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use futures::future::join_all;
use smallebot_agent::agents::AgentFolders;
use smallebot_agent::assembly::AgentAssembly;
use smallebot_agent::tools::{GetCurrentTime, ToolRegistry};
use smallebot_application::{ConversationService, SendOptions};
use smallebot_core::entities::TurnStatus;
use smallebot_infrastructure::SqliteStore;
use smallebot_model_client::ChatEndpoint;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel, ToolCallSpec};

use super::{Figure, median, ms};

/// How long the model takes to answer any request.
const LATENCY: Duration = Duration::from_millis(50);
/// Sub-agents at once in the measured turn.
const AGENTS: usize = 8;
/// Tool calls each sub-agent makes before it answers.
const TOOL_CALLS: usize = 3;
/// Turns measured per figure (their median is steady from about this many on this
/// noisy, shared machine).
const ROUNDS: usize = 24;

/// The system prompt of `request`.
fn system(request: &RecordedRequest) -> &str {
    request
        .messages()
        .first()
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
}

/// The task a worker's request is about (its first user message).
fn task(request: &RecordedRequest) -> String {
    request
        .messages()
        .iter()
        .find(|m| m["role"] == "user")
        .and_then(|m| m["content"].as_str())
        .unwrap_or_default()
        .to_owned()
}

/// The parent delegates to `fan_out` workers at once, then answers; each worker calls
/// GetCurrentTime [`TOOL_CALLS`] times, then answers. Every answer after [`LATENCY`].
fn script(server: &TestModel, fan_out: Arc<AtomicUsize>) {
    server.respond_with(move |req| {
        let tool_results = req.tool_results_since_user();
        let response = if system(req).contains("You are worker.") {
            if tool_results < TOOL_CALLS {
                ScriptedResponse::tool_calls([ToolCallSpec::new(
                    format!("t{}", req.index),
                    "GetCurrentTime",
                    "{}",
                )])
            } else {
                ScriptedResponse::text("worked")
            }
        } else if tool_results > 0 {
            ScriptedResponse::text("All delegated work is done.")
        } else {
            let calls = (0..fan_out.load(Ordering::SeqCst)).map(|k| {
                let args = serde_json::json!({
                    "agent": "worker",
                    "prompt": format!("task {k}: read the clock three times"),
                    "description": format!("task {k}"),
                });
                ToolCallSpec::new(format!("d{}_{k}", req.index), "Delegate", args.to_string())
            });
            ScriptedResponse::tool_calls(calls)
        };
        response.chunk_size(1000).delay_before(LATENCY)
    });
}

/// One measured turn: its wall time and its requests replayed raw.
struct Round {
    turn: Duration,
    raw: Duration,
}

/// Runs one turn delegating to `fan_out` workers, then replays its requests raw: the
/// parent's first, the workers' chains side by side (each chain in order), the parent's
/// last.
async fn round(
    service: &ConversationService,
    server: &TestModel,
    client: &reqwest::Client,
    fan_out: usize,
) -> Result<Round, String> {
    let conversation = service
        .create_conversation("bench agents")
        .await
        .map_err(|e| e.to_string())?;
    let first = server.request_count();
    let started = Instant::now();
    let outcome = service
        .send(
            conversation.id,
            "Delegate the work.",
            SendOptions::default(),
        )
        .await
        .map_err(|e| e.to_string())?;
    let turn = started.elapsed();
    if outcome.status != TurnStatus::Completed {
        return Err(format!("the benchmark's turn failed: {:?}", outcome.error));
    }
    let requests: Vec<RecordedRequest> = (first..server.request_count())
        .filter_map(|i| server.request(i))
        .filter(|r| !r.asks_for_title())
        .collect();
    let expected = 2 + fan_out * (TOOL_CALLS + 1);
    if requests.len() != expected {
        return Err(format!(
            "expected {expected} model requests, the model saw {}",
            requests.len()
        ));
    }
    let (workers, parent): (Vec<_>, Vec<_>) = requests
        .into_iter()
        .partition(|r| system(r).contains("You are worker."));
    let mut chains: Vec<Vec<RecordedRequest>> = Vec::new();
    for request in workers {
        let key = task(&request);
        match chains.iter_mut().find(|c| task(&c[0]) == key) {
            Some(chain) => chain.push(request),
            None => chains.push(vec![request]),
        }
    }
    let url = format!("{}/chat/completions", server.base_url());
    let send = |request: RecordedRequest| {
        let (client, url) = (client.clone(), url.clone());
        async move {
            let response = client
                .post(&url)
                .json(&request.body)
                .send()
                .await
                .map_err(|e| e.to_string())?;
            response.bytes().await.map_err(|e| e.to_string())?;
            Ok::<(), String>(())
        }
    };
    let mut parent = parent.into_iter();
    let started = Instant::now();
    if let Some(request) = parent.next() {
        send(request).await?;
    }
    let chains = chains.into_iter().map(|chain| async {
        for request in chain {
            send(request).await?;
        }
        Ok::<(), String>(())
    });
    for chain in join_all(chains).await {
        chain?;
    }
    for request in parent {
        send(request).await?;
    }
    Ok(Round {
        turn,
        raw: started.elapsed(),
    })
}

/// Medians of [`ROUNDS`] turns delegating to `fan_out` workers.
async fn measure(
    service: &ConversationService,
    server: &TestModel,
    client: &reqwest::Client,
    fan_out: &AtomicUsize,
    agents: usize,
) -> Result<(Duration, Duration, Duration), String> {
    fan_out.store(agents, Ordering::SeqCst);
    let mut turns = Vec::new();
    let mut raws = Vec::new();
    let mut overheads = Vec::new();
    for _ in 0..ROUNDS {
        let Round { turn, raw } = round(service, server, client, agents).await?;
        turns.push(turn);
        raws.push(raw);
        overheads.push(turn.saturating_sub(raw));
    }
    Ok((median(turns), median(raws), median(overheads)))
}

/// Wall time with 8 sub-agents at most this many times that with one.
const WALL_TARGET: f64 = 1.3;
/// The host's time per sub-agent at most this.
const OVERHEAD_TARGET: Duration = Duration::from_micros(1500);

/// The figures: 8 sub-agents' wall time against one's, and the host's time per
/// sub-agent.
pub async fn run() -> Result<Vec<Figure>, String> {
    let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
    let agents = dir.path().join("agents");
    std::fs::create_dir_all(&agents).map_err(|e| e.to_string())?;
    std::fs::write(
        agents.join("worker.md"),
        "---\nname: worker\ndescription: Does one task.\ntools: GetCurrentTime\n---\n\
         You are worker. Use GetCurrentTime three times, then answer.\n",
    )
    .map_err(|e| e.to_string())?;
    // The model server apart from the host's runtime, as a real one is: the host's
    // time is what its own workers spend.
    let server = TestModel::start_apart().map_err(|e| e.to_string())?;
    server.answer_when(RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("A title")
    });
    let fan_out = Arc::new(AtomicUsize::new(1));
    script(&server, Arc::clone(&fan_out));
    let store = SqliteStore::open(&dir.path().join("bench.db"))
        .await
        .map_err(|e| e.to_string())?;
    let agent = AgentAssembly::new(
        Arc::new(store.clone()),
        ChatEndpoint::new(server.base_url(), "bench"),
    )
    .skill_path(dir.path().join("SKILL.md"))
    .tools(ToolRegistry::new().with(Arc::new(GetCurrentTime)))
    .sub_agents(
        AgentFolders {
            shared: agents,
            user: None,
        },
        AGENTS,
    )
    .build()
    .map_err(|e| e.to_string())?;
    agent.tokenizer.warm_up();
    let service = agent.service;
    // The replay's client keeps its connections from round to round, as the host's does:
    // the raw figure is the requests themselves, not opening connections for them.
    let client = reqwest::Client::new();
    // One turn first, unmeasured: connections open, caches warm.
    round(&service, &server, &client, 1).await?;
    let (one, one_raw, one_overhead) = measure(&service, &server, &client, &fan_out, 1).await?;
    let (eight, eight_raw, eight_overhead) =
        measure(&service, &server, &client, &fan_out, AGENTS).await?;
    store.close().await;
    let wall = eight.as_secs_f64() / one.as_secs_f64().max(1e-9);
    let per_agent = eight_overhead / u32::try_from(AGENTS).unwrap_or(1);
    let met = |ok: bool| if ok { "met" } else { "NOT met" };
    Ok(vec![
        Figure {
            name: format!(
                "{AGENTS} sub-agents at once, {TOOL_CALLS} tool calls each, model answering after {} ms",
                LATENCY.as_millis()
            ),
            value: format!("turn {} (median of {ROUNDS})", ms(eight)),
            baseline: format!("the same turn with 1 sub-agent: {} (median)", ms(one)),
            ratio: format!("{wall:.2}×"),
            target: format!(
                "≤ {WALL_TARGET}× (they run in parallel): {}",
                met(wall <= WALL_TARGET)
            ),
        },
        Figure {
            name: "host time per sub-agent (SQLite)".into(),
            value: format!(
                "1 sub-agent: {} beyond its requests; {AGENTS} at once: {} beyond theirs, {} per sub-agent",
                ms(one_overhead),
                ms(eight_overhead),
                ms(per_agent)
            ),
            baseline: format!(
                "each turn's own requests sent again raw right after it, in the same order \
                 and parallelism: {} (1), {} ({AGENTS}) (medians)",
                ms(one_raw),
                ms(eight_raw)
            ),
            ratio: format!(
                "turn/raw {:.2}× (1), {:.2}× ({AGENTS})",
                one.as_secs_f64() / one_raw.as_secs_f64().max(1e-9),
                eight.as_secs_f64() / eight_raw.as_secs_f64().max(1e-9)
            ),
            target: format!(
                "≤ {} per sub-agent ({AGENTS} at once, their turn's host time shared among \
                 them): {}",
                ms(OVERHEAD_TARGET),
                met(per_agent <= OVERHEAD_TARGET)
            ),
        },
    ])
}
