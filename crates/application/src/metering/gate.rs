//! The budgets' gate: before a billed request is sent, what was spent in each budget's
//! scope (stored records, plus what requests still running may cost) and the
//! request's projected cost are checked against the limits; a request that could pass
//! one is not sent. A request let through holds a reservation of its projected cost
//! until its record is queued, so requests running side by side (sub-agents) cannot
//! together pass a budget.

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use async_trait::async_trait;
use smallebot_core::entities::{UsageAccount, UsageFilter};
use smallebot_core::repository::{RepoResult, UsageRepository};
use smallebot_core::rules::budget::{Budgets, Spent, check, day_start, month_start};
use smallebot_core::rules::cost::{Pricing, projected_cost};

use crate::ports::{ModelError, ModelErrorKind, RequestBilling};

/// The answer bound assumed for a request that names none (the model-client's
/// default `maxOutputTokens`).
const UNBOUNDED_ANSWER_TOKENS: u32 = 4096;

/// Per-user monthly budgets that replace agent.json's `perUserMonthly` (`users set NAME
/// --budget-monthly N`).
#[async_trait]
pub trait BudgetOverrides: Send + Sync {
    /// The monthly budget of `user` in picos, when one is set for them.
    async fn monthly(&self, user: &str) -> Option<i64>;
}

/// No user has a budget of their own.
#[derive(Debug, Default, Clone, Copy)]
pub struct NoOverrides;

#[async_trait]
impl BudgetOverrides for NoOverrides {
    async fn monthly(&self, _user: &str) -> Option<i64> {
        None
    }
}

/// A request let through, holding its projected cost until it ended.
#[derive(Debug)]
pub(super) struct Reservation(u64);

/// A reservation's scope and amount.
#[derive(Debug, Clone)]
struct Held {
    id: u64,
    account: UsageAccount,
    amount: i64,
}

pub(super) struct BudgetGate {
    budgets: Budgets,
    overrides: Arc<dyn BudgetOverrides>,
    usage: Arc<dyn UsageRepository>,
    /// One check at a time: the reads and the reservation of one check never
    /// interleave with another's.
    checking: tokio::sync::Mutex<()>,
    held: Mutex<Vec<Held>>,
    next_id: AtomicU64,
}

impl BudgetGate {
    pub(super) fn new(
        budgets: Budgets,
        overrides: Arc<dyn BudgetOverrides>,
        usage: Arc<dyn UsageRepository>,
    ) -> Self {
        Self {
            budgets,
            overrides,
            usage,
            checking: tokio::sync::Mutex::new(()),
            held: Mutex::new(Vec::new()),
            next_id: AtomicU64::new(0),
        }
    }

    fn held(&self) -> std::sync::MutexGuard<'_, Vec<Held>> {
        self.held.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Lets the request through (with its reservation, when a budget applies) or
    /// refuses it with the budget's reason.
    pub(super) async fn admit(
        &self,
        billing: &RequestBilling,
        pricing: &Pricing,
        max_tokens: Option<u32>,
    ) -> Result<Option<Reservation>, ModelError> {
        let account = &billing.account;
        let mut budgets = self.budgets;
        if let Some(monthly) = self.overrides.monthly(&account.user_name).await {
            budgets.per_user_monthly = Some(monthly);
        }
        if !budgets.any() {
            return Ok(None);
        }
        let answer = u64::from(max_tokens.unwrap_or(UNBOUNDED_ANSWER_TOKENS));
        let projected = projected_cost(pricing, billing.prompt_tokens, answer);
        let _one_at_a_time = self.checking.lock().await;
        // Taken before the store is read: a request ending in between is counted
        // twice, never not at all.
        let running = self.held().clone();
        let now = chrono::Utc::now();
        let spent = self
            .spent(&budgets, account, now, &running)
            .await
            .map_err(|err| {
                ModelError::new(
                    ModelErrorKind::BudgetReached,
                    format!(
                        "budget reached: the budgets could not be checked ({err}), so the \
                         request was not sent; try again"
                    ),
                )
            })?;
        if let Some(stop) = check(&budgets, &spent, projected) {
            return Err(ModelError::new(
                ModelErrorKind::BudgetReached,
                stop.message(&pricing.currency, now),
            ));
        }
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        self.held().push(Held {
            id,
            account: account.clone(),
            amount: projected,
        });
        Ok(Some(Reservation(id)))
    }

    /// Frees a reservation (its request's record is queued).
    pub(super) fn release(&self, reservation: Reservation) {
        self.held().retain(|held| held.id != reservation.0);
    }

    /// What was spent in each limited scope of `account`: stored and still running.
    async fn spent(
        &self,
        budgets: &Budgets,
        account: &UsageAccount,
        now: smallebot_core::time::Timestamp,
        running: &[Held],
    ) -> RepoResult<Spent> {
        let user = Some(account.user_name.clone());
        let running_where = |keep: &dyn Fn(&UsageAccount) -> bool| -> i64 {
            running
                .iter()
                .filter(|h| keep(&h.account))
                .map(|h| h.amount)
                .sum()
        };
        let mut spent = Spent::default();
        if let (Some(_), Some(turn)) = (budgets.per_turn, account.turn_id) {
            spent.turn = self
                .cost(UsageFilter {
                    turn: Some(turn),
                    ..UsageFilter::default()
                })
                .await?
                + running_where(&|a| a.turn_id == Some(turn));
        }
        if budgets.per_conversation.is_some() {
            let conversation = account.conversation_id;
            spent.conversation = self
                .cost(UsageFilter {
                    conversation: Some(conversation),
                    ..UsageFilter::default()
                })
                .await?
                + running_where(&|a| a.conversation_id == conversation);
        }
        let by_user = running_where(&|a| a.user_name == account.user_name);
        for (limit, since, slot) in [
            (budgets.per_user_daily, day_start(now), &mut spent.user_day),
            (
                budgets.per_user_monthly,
                month_start(now),
                &mut spent.user_month,
            ),
        ] {
            if limit.is_some() {
                *slot = self
                    .cost(UsageFilter {
                        user: user.clone(),
                        since: Some(since),
                        ..UsageFilter::default()
                    })
                    .await?
                    + by_user;
            }
        }
        Ok(spent)
    }

    async fn cost(&self, filter: UsageFilter) -> RepoResult<i64> {
        self.usage.usage_cost(&filter).await
    }
}
