//! `smallebot usage`: its arguments and what it prints — the recorded model requests
//! summed by day, model, user or conversation, as a table or as JSON (the binary opens
//! the store).

use std::fmt::Write as _;

use serde_json::{Value, json};
use smallebot_core::entities::UsageFilter;
use smallebot_core::repository::UsageRepository;
use smallebot_core::rules::cost::{format_amount, in_units};
use smallebot_core::rules::usage_report::{UsageGroup, UsageGrouping, summarize};
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

/// `--since`: a day (its UTC midnight) or an RFC 3339 time.
fn parse_since(text: &str) -> Result<Timestamp, String> {
    if let Ok(day) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(day.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|at| at.with_timezone(&chrono::Utc))
        .map_err(|_| {
            format!("'{text}' is no date: give a day (2026-03-01) or a time (2026-03-01T12:00:00Z)")
        })
}

/// The word of a grouping, as `--by` takes it.
fn grouping_word(grouping: UsageGrouping) -> &'static str {
    match grouping {
        UsageGrouping::Day => "day",
        UsageGrouping::Model => "model",
        UsageGrouping::User => "user",
        UsageGrouping::Conversation => "conversation",
    }
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
        grouping_word(grouping),
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

/// A group as JSON: its counts, and its cost per currency in units and in picos.
fn group_json(group: &UsageGroup) -> Value {
    let costs: serde_json::Map<String, Value> = group
        .costs
        .iter()
        .map(|(currency, picos)| {
            (
                currency.clone(),
                json!({ "amount": in_units(*picos), "picos": picos }),
            )
        })
        .collect();
    json!({
        "key": group.key,
        "requests": group.requests,
        "prompt_tokens": group.tokens.prompt,
        "cached_prompt_tokens": group.tokens.cached_prompt,
        "completion_tokens": group.tokens.completion,
        "reasoning_tokens": group.tokens.reasoning,
        "cost": costs,
        "unpriced_requests": group.unpriced,
        "refused_requests": group.refused,
    })
}

/// The JSON report: the filters, the groups and the total.
#[must_use]
pub fn report_json(args: &UsageArgs, groups: &[UsageGroup], total: &UsageGroup) -> Value {
    json!({
        "by": grouping_word(args.by),
        "user": args.user,
        "since": args.since.as_ref().map(format_timestamp),
        "groups": groups.iter().map(group_json).collect::<Vec<_>>(),
        "total": group_json(total),
    })
}

/// Reads the records `args` select from `store` and prints them summed.
///
/// # Errors
/// The store fails, or the output cannot be written.
pub async fn run(store: &dyn UsageRepository, args: &UsageArgs) -> Result<(), TerminalError> {
    let filter = UsageFilter {
        user: args.user.clone(),
        since: args.since,
        ..UsageFilter::default()
    };
    let records = store.usage_records(&filter).await?;
    let (groups, total) = summarize(&records, args.by);
    if args.json {
        outln!("{}", report_json(args, &groups, &total))?;
    } else if records.is_empty() {
        outln!("no model requests recorded{}", scope_words(args))?;
    } else {
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
    fn since_takes_a_day_or_a_time_and_names_bad_input() {
        assert_eq!(
            format_timestamp(&parse_since("2026-03-01").unwrap()),
            format_timestamp(&parse_since("2026-03-01T00:00:00Z").unwrap())
        );
        assert!(parse_since("2026-03-01T02:00:00+02:00").is_ok());
        let err = parse_since("last week").unwrap_err();
        assert!(err.contains("'last week' is no date"), "{err}");
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

    #[test]
    fn json_gives_amounts_and_picos_per_currency() {
        let args = UsageArgs {
            user: Some("ann".into()),
            since: None,
            by: UsageGrouping::User,
            json: true,
        };
        let groups = [group("ann", 1, &[("USD", 2_000_000)], 0)];
        let value = report_json(&args, &groups, &groups[0]);
        assert_eq!(value["by"], "user");
        assert_eq!(value["user"], "ann");
        assert_eq!(value["groups"][0]["prompt_tokens"], 1000);
        assert_eq!(value["groups"][0]["cost"]["USD"]["picos"], 2_000_000);
        assert_eq!(value["total"]["cost"]["USD"]["amount"], 0.000_002);
    }
}
