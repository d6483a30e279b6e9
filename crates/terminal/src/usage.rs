//! `smallebot usage`: its arguments and what it prints — the recorded model requests
//! summed by day, model, user or conversation, as a table or as JSON (the binary opens
//! the store).

use std::fmt::Write as _;

use serde_json::Value;
use smallebot_application::wire;
use smallebot_core::entities::{UsageFilter, UsageRecord};
use smallebot_core::repository::UsageRepository;
use smallebot_core::rules::cost::format_amount;
use smallebot_core::rules::usage_report::{UsageGroup, UsageGrouping, parse_since, summarize};
use smallebot_core::time::{Timestamp, format_timestamp};

use crate::TerminalError;

/// `smallebot usage …`
#[derive(Debug, Clone, clap::Args)]
pub struct UsageArgs {
    /// Only this user's requests.
    #[arg(long)]
    pub user: Option<String>,
    /// Only requests that ended from this moment on: a UTC day (`2026-03-01`) or an
    /// RFC 3339 time (`2026-03-01T12:00:00Z`).
    #[arg(long, value_name = "DATE", value_parser = parse_since)]
    pub since: Option<Timestamp>,
    /// What the requests are summed by: day, model, user or conversation.
    #[arg(long, value_name = "GROUPING", default_value = "model", value_parser = UsageGrouping::parse)]
    pub by: UsageGrouping,
    /// One JSON object on standard output instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// What a group cost, for people: each currency's amount, `-` when nothing was
/// priced, and how many requests had no price.
fn cost_text(group: &UsageGroup) -> String {
    let mut parts: Vec<String> = group
        .costs
        .iter()
        .map(|(currency, picos)| format_amount(*picos, currency))
        .collect();
    if group.unpriced > 0 {
        parts.push(format!("{} unpriced", group.unpriced));
    }
    if parts.is_empty() {
        "-".to_owned()
    } else {
        parts.join(" + ")
    }
}

/// The table: a header, a line per group and the total.
#[must_use]
pub fn table(grouping: UsageGrouping, groups: &[UsageGroup], total: &UsageGroup) -> String {
    let rows: Vec<[String; 7]> = groups
        .iter()
        .chain(std::iter::once(total))
        .map(|g| {
            [
                g.key.clone(),
                g.requests.to_string(),
                g.tokens.prompt.to_string(),
                g.tokens.cached_prompt.to_string(),
                g.tokens.completion.to_string(),
                g.tokens.reasoning.to_string(),
                cost_text(g),
            ]
        })
        .collect();
    let header = [
        wire::usage::grouping_word(grouping),
        "requests",
        "prompt",
        "cached",
        "completion",
        "reasoning",
        "cost",
    ];
    let mut widths = header.map(str::len);
    for row in &rows {
        for (width, cell) in widths.iter_mut().zip(row) {
            *width = (*width).max(cell.chars().count());
        }
    }
    let mut out = String::new();
    let mut line = |cells: &[&str]| {
        let mut text = String::new();
        for (i, (cell, width)) in cells.iter().zip(widths).enumerate() {
            let _ = match i {
                0 => write!(text, "{cell:<width$}"),
                6 => write!(text, "  {cell}"),
                _ => write!(text, "  {cell:>width$}"),
            };
        }
        out.push_str(text.trim_end());
        out.push('\n');
    };
    line(&header);
    for row in &rows {
        line(&row.each_ref().map(String::as_str));
    }
    out
}

/// The JSON report: the filters, the groups and the total (the body of `GET
/// /api/usage`, made by [`wire::usage::report`]).
#[must_use]
pub fn report_json(args: &UsageArgs, records: &[UsageRecord]) -> Value {
    let report = wire::usage::report(&filter(args), args.by, records);
    serde_json::to_value(report).unwrap_or(Value::Null)
}

/// The records `args` select.
fn filter(args: &UsageArgs) -> UsageFilter {
    UsageFilter {
        user: args.user.clone(),
        since: args.since,
        ..UsageFilter::default()
    }
}

/// Reads the records `args` select from `store` and prints them summed.
///
/// # Errors
/// The store fails, or the output cannot be written.
pub async fn run(store: &dyn UsageRepository, args: &UsageArgs) -> Result<(), TerminalError> {
    let records = store.usage_records(&filter(args)).await?;
    if args.json {
        outln!("{}", report_json(args, &records))?;
    } else if records.is_empty() {
        outln!("no model requests recorded{}", scope_words(args))?;
    } else {
        let (groups, total) = summarize(&records, args.by);
        out!("{}", table(args.by, &groups, &total))?;
    }
    Ok(())
}

/// What the records billed to a conversation (and one of its turns) cost, for the
/// line `run` prints after its turn and chat's `/usage`: `cost: this turn 0.002800 USD
/// (3 requests) · this conversation 0.008400 USD (9 requests)`; `None` when nothing of
/// it was priced (the usage line shows the tokens).
///
/// # Errors
/// The store fails.
pub async fn cost_line(
    store: &dyn UsageRepository,
    conversation_id: smallebot_core::ids::ConversationId,
    turn_id: Option<smallebot_core::ids::TurnId>,
) -> Result<Option<String>, TerminalError> {
    let filter = UsageFilter {
        conversation: Some(conversation_id),
        ..UsageFilter::default()
    };
    let records = store.usage_records(&filter).await?;
    let (_, conversation) = summarize(&records, UsageGrouping::Model);
    if conversation.costs.is_empty() {
        return Ok(None);
    }
    let of_turn: Vec<_> = records
        .into_iter()
        .filter(|r| turn_id.is_some() && r.account.turn_id == turn_id)
        .collect();
    let (_, turn) = summarize(&of_turn, UsageGrouping::Model);
    let part = |what: &str, group: &UsageGroup| {
        format!("{what} {} ({} requests)", cost_text(group), group.requests)
    };
    let mut line = String::from("cost: ");
    if turn_id.is_some() {
        line.push_str(&part("this turn", &turn));
        line.push_str(" · ");
    }
    line.push_str(&part("this conversation", &conversation));
    Ok(Some(line))
}

/// " for USER since DATE", as far as they were given.
fn scope_words(args: &UsageArgs) -> String {
    let mut words = String::new();
    if let Some(user) = &args.user {
        let _ = write!(words, " for {user}");
    }
    if let Some(since) = &args.since {
        let _ = write!(words, " since {}", format_timestamp(since));
    }
    words
}

#[cfg(test)]
mod tests {
    use super::*;
    use smallebot_core::entities::TokenCounts;

    fn group(key: &str, requests: u64, costs: &[(&str, i64)], unpriced: u64) -> UsageGroup {
        UsageGroup {
            key: key.into(),
            requests,
            tokens: TokenCounts {
                prompt: 1000 * requests,
                cached_prompt: 10,
                completion: 5,
                reasoning: 1,
            },
            costs: costs.iter().map(|(c, p)| ((*c).to_owned(), *p)).collect(),
            unpriced,
            refused: 0,
        }
    }

    #[test]
    fn the_table_aligns_columns_and_says_what_was_not_priced() {
        let groups = [
            group("big", 2, &[("USD", 1_250_000_000)], 0),
            group("local", 1, &[], 1),
        ];
        let total = group("total", 3, &[("USD", 1_250_000_000)], 1);
        let text = table(UsageGrouping::Model, &groups, &total);
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines,
            [
                "model  requests  prompt  cached  completion  reasoning  cost",
                "big           2    2000      10           5          1  0.001250 USD",
                "local         1    1000      10           5          1  1 unpriced",
                "total         3    3000      10           5          1  0.001250 USD + 1 unpriced",
            ]
        );
        assert_eq!(cost_text(&group("x", 1, &[], 0)), "-");
    }

    fn record(user: &str, prompt: u64, cost: Option<i64>) -> UsageRecord {
        let tokens = TokenCounts {
            prompt,
            cached_prompt: 10,
            completion: 5,
            reasoning: 1,
        };
        let at = smallebot_core::time::parse_timestamp("2026-03-01T12:00:00Z").unwrap();
        UsageRecord::example(user, "big", Some(tokens), cost, at)
    }

    #[test]
    fn json_gives_amounts_and_picos_per_currency_as_it_always_did() {
        let args = UsageArgs {
            user: Some("ann".into()),
            since: Some(parse_since("2026-03-01").unwrap()),
            by: UsageGrouping::User,
            json: true,
        };
        let records = [
            record("ann", 1000, Some(2_000_000)),
            record("bob", 500, None),
        ];
        let value = report_json(&args, &records);
        assert_eq!(value["by"], "user");
        assert_eq!(value["user"], "ann");
        assert_eq!(value["groups"][0]["prompt_tokens"], 1000);
        assert_eq!(value["groups"][0]["cost"]["USD"]["picos"], 2_000_000);
        assert_eq!(value["total"]["cost"]["USD"]["amount"], 0.000_002);
        assert_eq!(value["total"]["unpriced_requests"], 1);
        // Byte for byte what `usage --json` printed before the body was a protocol
        // type (a serde_json object, so keys in alphabetical order), with the requests a
        // budget refused.
        let group = |key: &str, requests: u64, prompt: u64, cost: serde_json::Value, unpriced| {
            serde_json::json!({
                "key": key, "requests": requests, "prompt_tokens": prompt,
                "cached_prompt_tokens": 10 * requests, "completion_tokens": 5 * requests,
                "reasoning_tokens": requests, "cost": cost, "unpriced_requests": unpriced,
                "refused_requests": 0,
            })
        };
        let usd = serde_json::json!({"USD": {"amount": 0.000_002, "picos": 2_000_000}});
        let before = serde_json::json!({
            "by": "user",
            "user": "ann",
            "since": "2026-03-01T00:00:00.000Z",
            "groups": [group("ann", 1, 1000, usd.clone(), 0),
                       group("bob", 1, 500, serde_json::json!({}), 1)],
            "total": group("total", 2, 1500, usd, 1),
        });
        assert_eq!(value.to_string(), before.to_string());
    }
}
