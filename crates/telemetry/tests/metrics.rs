//! The metrics as a scraper reads them: the events a bus delivers become series that a
//! Prometheus text parser reads back with the values the events imply.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::sync::Arc;

use smallebot_application::events::{CompressionTrigger, EventBus, EventKind, ToolCallStatus};
use smallebot_core::ids::{ConversationId, TurnId};
use smallebot_protocol::events::SubAgentOutcome;
use smallebot_telemetry::Metrics;

/// The value of the sample `name` whose labels include `labels`.
fn value(text: &str, name: &str, labels: &[(&str, &str)]) -> Option<f64> {
    let lines = text.lines().map(|l| Ok(l.to_owned()));
    let scrape = prometheus_parse::Scrape::parse(lines).unwrap();
    scrape
        .samples
        .iter()
        .find(|s| s.metric == name && labels.iter().all(|(k, v)| s.labels.get(k) == Some(*v)))
        .map(|s| match s.value {
            prometheus_parse::Value::Counter(v)
            | prometheus_parse::Value::Gauge(v)
            | prometheus_parse::Value::Untyped(v) => v,
            prometheus_parse::Value::Histogram(ref buckets) => {
                buckets.last().map_or(0.0, |b| b.count)
            }
            prometheus_parse::Value::Summary(_) => f64::NAN,
        })
}

fn tool(call: &str, status: Option<ToolCallStatus>) -> EventKind {
    match status {
        None => EventKind::ToolCallStarted {
            call_id: call.to_owned(),
            tool_name: "ReadFile".to_owned(),
            arguments: "{}".to_owned(),
        },
        Some(status) => EventKind::ToolCallCompleted {
            call_id: call.to_owned(),
            tool_name: "ReadFile".to_owned(),
            status,
            result: "text".to_owned(),
        },
    }
}

#[test]
fn the_events_a_bus_delivers_become_series_a_scraper_reads() {
    let metrics = Arc::new(Metrics::new());
    let bus = EventBus::new();
    assert!(bus.observe_with(metrics.clone()));
    // A second observer offered to the same bus is not taken (nothing counts twice).
    assert!(!bus.observe_with(Arc::new(Metrics::new())));
    let (a, b) = (ConversationId::new(), ConversationId::new());
    let turn = Some(TurnId::new());
    bus.emit(a, turn, EventKind::TurnStarted);
    bus.emit(b, turn, EventKind::TurnStarted);
    let text = metrics.render();
    assert_eq!(
        value(&text, "smallebot_active_turns", &[]),
        Some(2.0),
        "{text}"
    );
    bus.emit(a, turn, tool("c1", None));
    bus.emit(a, turn, tool("c1", Some(ToolCallStatus::Ok)));
    bus.emit(a, turn, tool("c2", None));
    bus.emit(a, turn, tool("c2", Some(ToolCallStatus::Error)));
    bus.emit(
        a,
        turn,
        EventKind::Retrying {
            attempt: 2,
            max: 3,
            reason: "429".to_owned(),
            delay_ms: 10,
        },
    );
    bus.emit(
        a,
        turn,
        EventKind::CompressionCompleted {
            trigger: CompressionTrigger::MidTurn,
            ok: true,
            detail: String::new(),
            tokens_before: 10,
            tokens_after: 5,
        },
    );
    for (call, outcome) in [("d1", Some(SubAgentOutcome::Completed)), ("d2", None)] {
        bus.emit(
            a,
            turn,
            EventKind::SubAgentStarted {
                call_id: call.to_owned(),
                sub_conversation_id: ConversationId::new().to_string(),
                agent: "reviewer".to_owned(),
                description: "Review".to_owned(),
                task: "look".to_owned(),
            },
        );
        if let Some(outcome) = outcome {
            bus.emit(
                a,
                turn,
                EventKind::SubAgentFinished {
                    call_id: call.to_owned(),
                    sub_conversation_id: String::new(),
                    agent: "reviewer".to_owned(),
                    outcome,
                    error: None,
                    tool_calls: 1,
                },
            );
        }
    }
    assert_eq!(
        value(&metrics.render(), "smallebot_active_sub_agents", &[]),
        Some(1.0)
    );
    bus.emit(
        a,
        turn,
        EventKind::TurnCompleted {
            text: "done".to_owned(),
            cut: None,
        },
    );
    bus.emit(
        b,
        turn,
        EventKind::TurnFailed {
            error: "x".to_owned(),
        },
    );
    // Events relayed from another process were counted there, not here.
    bus.emit_relayed(smallebot_application::events::Event::new(
        b,
        turn,
        99,
        EventKind::TurnStarted,
    ));

    let text = metrics.render();
    type Case<'a> = (&'a str, &'a [(&'a str, &'a str)], f64);
    let cases: &[Case] = &[
        ("smallebot_active_turns", &[], 0.0),
        ("smallebot_turns_total", &[("outcome", "completed")], 1.0),
        ("smallebot_turns_total", &[("outcome", "failed")], 1.0),
        (
            "smallebot_tool_calls_total",
            &[("tool", "ReadFile"), ("outcome", "ok")],
            1.0,
        ),
        (
            "smallebot_tool_calls_total",
            &[("tool", "ReadFile"), ("outcome", "error")],
            1.0,
        ),
        (
            "smallebot_tool_call_duration_seconds",
            &[("tool", "ReadFile")],
            2.0,
        ),
        ("smallebot_turn_duration_seconds", &[], 2.0),
        ("smallebot_model_retries_total", &[("cause", "429")], 1.0),
        (
            "smallebot_compressions_total",
            &[("trigger", "mid_turn"), ("outcome", "ok")],
            1.0,
        ),
        ("smallebot_sse_subscribers", &[], 0.0),
        (
            "smallebot_sub_agents_total",
            &[("agent", "reviewer"), ("outcome", "completed")],
            1.0,
        ),
        // The one that never said it ended is not working once its parent's turn is.
        ("smallebot_active_sub_agents", &[], 0.0),
    ];
    for (name, labels, want) in cases {
        assert_eq!(
            value(&text, name, labels),
            Some(*want),
            "{name} {labels:?} in\n{text}"
        );
    }
    metrics.sse_subscribers(true);
    metrics.sse_subscribers(true);
    metrics.sse_subscribers(false);
    assert_eq!(
        value(&metrics.render(), "smallebot_sse_subscribers", &[]),
        Some(1.0)
    );
}
