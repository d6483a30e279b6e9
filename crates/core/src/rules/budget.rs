//! Budgets (agent.json `budgets`): checked before every model request with the
//! request's projected cost ([`super::cost::projected_cost`]); a request that could pass
//! one is not sent.

use chrono::{Datelike, Duration, NaiveTime, TimeZone, Utc};
use serde::{Deserialize, Serialize};

use super::cost::{amount_in_picos, format_amount};
use crate::time::Timestamp;

/// How the stored error of a turn a budget stopped begins (front ends show such a turn
/// as stopped by a budget, and `run` exits with its own code).
pub const BUDGET_STOP: &str = "budget reached";

/// Whether a turn's stored error says a budget stopped it.
#[must_use]
pub fn is_budget_stop(error: &str) -> bool {
    error.starts_with(BUDGET_STOP)
}

/// The limits, each in picos; `None`: no limit.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Budgets {
    /// What one turn may cost, its sub-agents, title and summaries included.
    pub per_turn: Option<i64>,
    /// What one conversation may cost, its sub-agents included.
    pub per_conversation: Option<i64>,
    /// What one user may spend in a UTC day.
    pub per_user_daily: Option<i64>,
    /// What one user may spend in a UTC calendar month.
    pub per_user_monthly: Option<i64>,
}

impl Budgets {
    /// Whether any limit is set.
    #[must_use]
    pub fn any(&self) -> bool {
        self.per_turn.is_some()
            || self.per_conversation.is_some()
            || self.per_user_daily.is_some()
            || self.per_user_monthly.is_some()
    }
}

/// Which budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum BudgetKind {
    /// `perTurn`.
    PerTurn,
    /// `perConversation`.
    PerConversation,
    /// `perUserDaily`.
    PerUserDaily,
    /// `perUserMonthly`.
    PerUserMonthly,
}

impl BudgetKind {
    /// Its agent.json key.
    #[must_use]
    pub fn key(self) -> &'static str {
        match self {
            Self::PerTurn => "perTurn",
            Self::PerConversation => "perConversation",
            Self::PerUserDaily => "perUserDaily",
            Self::PerUserMonthly => "perUserMonthly",
        }
    }

    /// When what it counts starts again, for people.
    fn resets(self, now: Timestamp) -> String {
        match self {
            Self::PerTurn => "it starts again with the next turn".to_owned(),
            Self::PerConversation => "it does not reset: start a new conversation".to_owned(),
            Self::PerUserDaily => format!(
                "it resets at {}",
                next_day(now).format("%Y-%m-%d %H:%M UTC")
            ),
            Self::PerUserMonthly => {
                format!(
                    "it resets at {}",
                    next_month(now).format("%Y-%m-%d %H:%M UTC")
                )
            }
        }
    }
}

/// Bytes per token assumed of a prompt counted only as an upper bound (one token per
/// byte, before the tokenizer is ready): text runs three to four bytes a token.
pub const BYTES_PER_TOKEN_GUESS: u64 = 3;

/// The prompt tokens a budget check projects: the count itself when exact; from an
/// upper bound (one token per byte), a third of it — a bound would refuse requests
/// many times cheaper than the budget left.
#[must_use]
pub fn projected_prompt_tokens(counted: u64, exact: bool) -> u64 {
    if exact {
        counted
    } else {
        counted.div_ceil(BYTES_PER_TOKEN_GUESS)
    }
}

/// What was spent already, in picos, in each budget's scope.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Spent {
    /// In the turn.
    pub turn: i64,
    /// In the conversation.
    pub conversation: i64,
    /// By the user today (UTC).
    pub user_day: i64,
    /// By the user this month (UTC).
    pub user_month: i64,
}

/// A request a budget refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BudgetStop {
    /// Which budget.
    pub kind: BudgetKind,
    /// Its limit.
    pub limit: i64,
    /// What was spent in its scope.
    pub spent: i64,
    /// What the request could have cost.
    pub projected: i64,
}

impl BudgetStop {
    /// What is left of the budget (never below zero).
    #[must_use]
    pub fn remaining(&self) -> i64 {
        (self.limit - self.spent).max(0)
    }

    /// The stored reason, for people: which budget, what is left, what the request
    /// could have cost, when it resets and what to change.
    #[must_use]
    pub fn message(&self, currency: &str, now: Timestamp) -> String {
        format!(
            "{BUDGET_STOP}: the next model request could cost up to {}, but only {} of the {} \
             budget of {} is left ({} spent); {}. The request was not sent; raise \
             budgets.{} in agent.json{} to go on",
            format_amount(self.projected, currency),
            format_amount(self.remaining(), currency),
            self.kind.key(),
            format_amount(self.limit, currency),
            format_amount(self.spent, currency),
            self.kind.resets(now),
            self.kind.key(),
            if self.kind == BudgetKind::PerUserMonthly {
                " (or the user's own: `smallebot users set NAME --budget-monthly AMOUNT`)"
            } else {
                ""
            },
        )
    }
}

/// The first budget a request projected to cost `projected` could pass, if any:
/// `spent + projected > limit`.
#[must_use]
pub fn check(budgets: &Budgets, spent: &Spent, projected: i64) -> Option<BudgetStop> {
    [
        (BudgetKind::PerTurn, budgets.per_turn, spent.turn),
        (
            BudgetKind::PerConversation,
            budgets.per_conversation,
            spent.conversation,
        ),
        (
            BudgetKind::PerUserDaily,
            budgets.per_user_daily,
            spent.user_day,
        ),
        (
            BudgetKind::PerUserMonthly,
            budgets.per_user_monthly,
            spent.user_month,
        ),
    ]
    .into_iter()
    .find_map(|(kind, limit, spent)| {
        let limit = limit?;
        (spent.saturating_add(projected) > limit).then_some(BudgetStop {
            kind,
            limit,
            spent,
            projected,
        })
    })
}

/// The start of `now`'s UTC day.
#[must_use]
pub fn day_start(now: Timestamp) -> Timestamp {
    now.date_naive().and_time(NaiveTime::MIN).and_utc()
}

/// The start of `now`'s UTC calendar month.
#[must_use]
pub fn month_start(now: Timestamp) -> Timestamp {
    Utc.with_ymd_and_hms(now.year(), now.month(), 1, 0, 0, 0)
        .single()
        .unwrap_or_else(|| day_start(now))
}

/// A user's own monthly budget as `users set NAME --budget-monthly` takes it: an amount
/// in the price currency (`5`, `12.50`) in picos, or `none` (`Ok(None)`) to clear it.
///
/// # Errors
/// What is wrong with `text`, in words.
pub fn parse_budget_setting(text: &str) -> Result<Option<i64>, String> {
    let text = text.trim();
    if text.eq_ignore_ascii_case("none") {
        return Ok(None);
    }
    text.parse::<f64>()
        .ok()
        .and_then(amount_in_picos)
        .map(Some)
        .ok_or_else(|| {
            format!(
                "'{text}' is not a budget: give an amount in the models' price currency from 0 \
                 to 1000000 (like 25 or 12.50), or none to clear it"
            )
        })
}

fn next_day(now: Timestamp) -> Timestamp {
    day_start(now) + Duration::days(1)
}

fn next_month(now: Timestamp) -> Timestamp {
    let (year, month) = if now.month() == 12 {
        (now.year() + 1, 1)
    } else {
        (now.year(), now.month() + 1)
    };
    Utc.with_ymd_and_hms(year, month, 1, 0, 0, 0)
        .single()
        .unwrap_or_else(|| next_day(now))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(text: &str) -> Timestamp {
        crate::time::parse_timestamp(text).unwrap()
    }

    #[test]
    fn a_request_that_could_pass_a_budget_is_refused() {
        let budgets = Budgets {
            per_turn: Some(100),
            per_conversation: Some(1000),
            per_user_daily: None,
            per_user_monthly: Some(5000),
        };
        let spent = |turn, conversation, user_month| Spent {
            turn,
            conversation,
            user_day: 0,
            user_month,
        };
        let cases = [
            (spent(0, 0, 0), 100, None),
            (spent(0, 0, 0), 101, Some(BudgetKind::PerTurn)),
            (spent(50, 950, 0), 50, None),
            (spent(50, 951, 0), 50, Some(BudgetKind::PerConversation)),
            (spent(0, 0, 4990), 20, Some(BudgetKind::PerUserMonthly)),
            (spent(0, 0, 0), 0, None),
        ];
        for (spent, projected, expected) in cases {
            assert_eq!(
                check(&budgets, &spent, projected).map(|s| s.kind),
                expected,
                "{spent:?} {projected}"
            );
        }
        assert_eq!(check(&Budgets::default(), &spent(9, 9, 9), i64::MAX), None);
    }

    #[test]
    fn a_budget_setting_is_an_amount_or_none() {
        let cases: [(&str, Result<Option<i64>, ()>); 8] = [
            ("5", Ok(Some(5_000_000_000_000))),
            (" 12.5 ", Ok(Some(12_500_000_000_000))),
            ("0", Ok(Some(0))),
            ("none", Ok(None)),
            ("NONE", Ok(None)),
            ("-1", Err(())),
            ("ten", Err(())),
            ("2000000", Err(())),
        ];
        for (text, expected) in cases {
            let parsed = parse_budget_setting(text);
            assert_eq!(parsed.clone().map_err(|_| ()), expected, "{text}");
            if let Err(message) = parsed {
                assert!(message.contains("or none to clear it"), "{message}");
            }
        }
    }

    #[test]
    fn a_bound_is_projected_as_a_third_an_exact_count_as_itself() {
        let cases = [
            (900, true, 900),
            (900, false, 300),
            (901, false, 301),
            (0, false, 0),
        ];
        for (counted, exact, projected) in cases {
            assert_eq!(
                projected_prompt_tokens(counted, exact),
                projected,
                "{counted} {exact}"
            );
        }
    }

    #[test]
    fn the_reason_says_what_is_left_and_when_it_resets() {
        let stop = BudgetStop {
            kind: BudgetKind::PerUserDaily,
            limit: 1_000_000_000_000,
            spent: 999_000_000_000,
            projected: 2_000_000_000,
        };
        let text = stop.message("USD", at("2026-03-31T22:00:00Z"));
        assert!(is_budget_stop(&text), "{text}");
        for part in [
            "up to 0.002000 USD",
            "only 0.001000 USD of the perUserDaily budget of 1.000000 USD is left",
            "resets at 2026-04-01 00:00 UTC",
            "budgets.perUserDaily",
        ] {
            assert!(text.contains(part), "{part} in {text}");
        }
        let over = BudgetStop {
            spent: 2,
            limit: 1,
            projected: 1,
            kind: BudgetKind::PerTurn,
        };
        assert_eq!(over.remaining(), 0);
    }

    #[test]
    fn days_and_months_start_in_utc() {
        let cases = [
            (
                "2026-03-15T10:20:30Z",
                "2026-03-15T00:00:00Z",
                "2026-03-01T00:00:00Z",
                "2026-04-01T00:00:00Z",
            ),
            (
                "2026-12-31T23:59:59Z",
                "2026-12-31T00:00:00Z",
                "2026-12-01T00:00:00Z",
                "2027-01-01T00:00:00Z",
            ),
        ];
        for (now, day, month, next) in cases {
            assert_eq!(day_start(at(now)), at(day));
            assert_eq!(month_start(at(now)), at(month));
            assert_eq!(next_month(at(now)), at(next));
        }
    }
}
