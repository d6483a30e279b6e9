//! Usage records summed for people: by day, model, user or conversation.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use crate::entities::{TokenCounts, UsageOutcome, UsageRecord};
use crate::time::Timestamp;

/// What the records are summed by.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UsageGrouping {
    /// The UTC day the request ended (`2026-03-15`).
    Day,
    /// The models.json id.
    Model,
    /// The user.
    User,
    /// The conversation billed (a sub-agent's requests count in its parent's).
    Conversation,
}

impl UsageGrouping {
    /// Parses `day`, `model`, `user` or `conversation`.
    ///
    /// # Errors
    /// Says which words are known.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "day" => Ok(Self::Day),
            "model" => Ok(Self::Model),
            "user" => Ok(Self::User),
            "conversation" => Ok(Self::Conversation),
            other => Err(format!(
                "'{other}' is no grouping: use day, model, user or conversation"
            )),
        }
    }

    fn key(self, record: &UsageRecord) -> String {
        match self {
            Self::Day => record.at.format("%Y-%m-%d").to_string(),
            Self::Model => record.model.clone(),
            Self::User => record.account.user_name.clone(),
            Self::Conversation => record.account.conversation_id.to_string(),
        }
    }
}

/// A `since` bound as `smallebot usage --since` and `GET /api/usage?since=` take it: a
/// UTC day (its midnight, `2026-03-01`) or an RFC 3339 time.
///
/// # Errors
/// What is wrong with `text`, in words.
pub fn parse_since(text: &str) -> Result<Timestamp, String> {
    if let Ok(day) = chrono::NaiveDate::parse_from_str(text, "%Y-%m-%d") {
        return Ok(day.and_time(chrono::NaiveTime::MIN).and_utc());
    }
    chrono::DateTime::parse_from_rfc3339(text)
        .map(|at| at.with_timezone(&chrono::Utc))
        .map_err(|_| {
            format!("'{text}' is no date: give a day (2026-03-01) or a time (2026-03-01T12:00:00Z)")
        })
}

/// The sum of the records of one group.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct UsageGroup {
    /// The day, model id, user or conversation id.
    pub key: String,
    /// How many requests were sent (those a budget refused not among them).
    pub requests: u64,
    /// How many requests a budget refused before they were sent.
    pub refused: u64,
    /// Their tokens.
    pub tokens: TokenCounts,
    /// Their cost, in picos, per currency (empty when none was priced).
    pub costs: BTreeMap<String, i64>,
    /// How many requests reported tokens but had no price.
    pub unpriced: u64,
}

impl UsageGroup {
    fn add(&mut self, record: &UsageRecord) {
        if record.outcome == UsageOutcome::OverBudget {
            self.refused += 1;
            return;
        }
        self.requests += 1;
        if let Some(tokens) = record.tokens {
            self.tokens = self.tokens.plus(tokens);
        }
        match (record.cost, &record.currency) {
            (Some(cost), Some(currency)) => {
                *self.costs.entry(currency.clone()).or_default() += cost;
            }
            _ if record.tokens.is_some() => self.unpriced += 1,
            _ => {}
        }
    }
}

/// The records summed by `grouping`, groups in key order, and the total of all.
#[must_use]
pub fn summarize(
    records: &[UsageRecord],
    grouping: UsageGrouping,
) -> (Vec<UsageGroup>, UsageGroup) {
    let mut groups: BTreeMap<String, UsageGroup> = BTreeMap::new();
    let mut total = UsageGroup {
        key: "total".to_owned(),
        ..UsageGroup::default()
    };
    for record in records {
        let key = grouping.key(record);
        groups
            .entry(key.clone())
            .or_insert_with(|| UsageGroup {
                key,
                ..UsageGroup::default()
            })
            .add(record);
        total.add(record);
    }
    (groups.into_values().collect(), total)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(
        user: &str,
        model: &str,
        day: &str,
        tokens: Option<(u64, u64)>,
        cost: Option<i64>,
    ) -> UsageRecord {
        let tokens = tokens.map(|(prompt, completion)| TokenCounts {
            prompt,
            completion,
            ..TokenCounts::default()
        });
        let at = crate::time::parse_timestamp(&format!("{day}T12:00:00Z")).unwrap();
        UsageRecord::example(user, model, tokens, cost, at)
    }

    #[test]
    fn sums_by_each_grouping() {
        let records = [
            record("ann", "big", "2026-03-01", Some((100, 10)), Some(5)),
            record("ann", "small", "2026-03-02", Some((50, 5)), None),
            record("bob", "big", "2026-03-02", Some((200, 20)), Some(7)),
            record("bob", "big", "2026-03-02", None, None),
            UsageRecord {
                outcome: UsageOutcome::OverBudget,
                ..record("bob", "big", "2026-03-02", None, None)
            },
        ];
        let keys = |g: UsageGrouping| -> Vec<(String, u64, u64, Option<i64>, u64)> {
            summarize(&records, g)
                .0
                .into_iter()
                .map(|g| {
                    (
                        g.key,
                        g.requests,
                        g.tokens.prompt,
                        g.costs.get("USD").copied(),
                        g.unpriced,
                    )
                })
                .collect()
        };
        let cases = [
            (
                UsageGrouping::User,
                vec![("ann", 2, 150, Some(5), 1), ("bob", 2, 200, Some(7), 0)],
            ),
            (
                UsageGrouping::Model,
                vec![("big", 3, 300, Some(12), 0), ("small", 1, 50, None, 1)],
            ),
            (
                UsageGrouping::Day,
                vec![
                    ("2026-03-01", 1, 100, Some(5), 0),
                    ("2026-03-02", 3, 250, Some(7), 1),
                ],
            ),
        ];
        for (grouping, expected) in cases {
            let expected: Vec<_> = expected
                .into_iter()
                .map(|(k, n, p, c, u)| (k.to_owned(), n, p, c, u))
                .collect();
            assert_eq!(keys(grouping), expected, "{grouping:?}");
        }
        let (by_conversation, total) = summarize(&records, UsageGrouping::Conversation);
        assert_eq!(by_conversation.len(), 5);
        // A request a budget refused was never sent: counted apart.
        assert_eq!(
            (
                total.requests,
                total.refused,
                total.tokens.completion,
                total.costs["USD"]
            ),
            (4, 1, 35, 12)
        );
        assert!(
            UsageGrouping::parse("week")
                .unwrap_err()
                .contains("day, model, user")
        );
    }

    #[test]
    fn since_takes_a_day_or_a_time_and_names_bad_input() {
        assert_eq!(
            crate::time::format_timestamp(&parse_since("2026-03-01").unwrap()),
            crate::time::format_timestamp(&parse_since("2026-03-01T00:00:00Z").unwrap())
        );
        assert!(parse_since("2026-03-01T02:00:00+02:00").is_ok());
        let err = parse_since("last week").unwrap_err();
        assert!(err.contains("'last week' is no date"), "{err}");
    }
}
