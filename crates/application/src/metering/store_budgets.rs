//! Each user's own monthly budget (`users set NAME --budget-monthly N`), read from
//! where the host keeps users ([`MonthlyBudgets`]) and kept a few seconds per user so
//! that a turn's many requests do not each read it ([`StoreBudgets`]).

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use smallebot_core::repository::RepoResult;

use super::BudgetOverrides;

/// Where each user's own monthly budget is read (the host's store of users).
#[async_trait]
pub trait MonthlyBudgets: Send + Sync {
    /// The own monthly budget of `user` in picos, if one is set.
    ///
    /// # Errors
    /// Storage failures.
    async fn monthly_budget(&self, user: &str) -> RepoResult<Option<i64>>;
}

/// How long a user's budget read from the store is used before it is read again (a
/// `users set` reaches a running server within this).
pub const BUDGET_READ_EVERY: Duration = Duration::from_secs(5);

/// The users' own monthly budgets in the store, cached per user for
/// [`BUDGET_READ_EVERY`].
pub struct StoreBudgets {
    store: Box<dyn MonthlyBudgets>,
    read: Mutex<HashMap<String, (Instant, Option<i64>)>>,
}

impl StoreBudgets {
    /// Budgets read from `store`, each kept for [`BUDGET_READ_EVERY`].
    #[must_use]
    pub fn new(store: impl MonthlyBudgets + 'static) -> Self {
        Self {
            store: Box::new(store),
            read: Mutex::new(HashMap::new()),
        }
    }

    fn cached(&self, user: &str, now: Instant) -> Option<Option<i64>> {
        let read = self
            .read
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        read.get(user)
            .filter(|(at, _)| now.duration_since(*at) < BUDGET_READ_EVERY)
            .map(|(_, budget)| *budget)
    }

    fn last_known(&self, user: &str) -> Option<i64> {
        let read = self
            .read
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        read.get(user).and_then(|(_, budget)| *budget)
    }
}

#[async_trait]
impl BudgetOverrides for StoreBudgets {
    async fn monthly(&self, user: &str) -> Option<i64> {
        let now = Instant::now();
        if let Some(budget) = self.cached(user, now) {
            return budget;
        }
        match self.store.monthly_budget(user).await {
            Ok(budget) => {
                let mut read = self
                    .read
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner);
                read.insert(user.to_owned(), (now, budget));
                budget
            }
            Err(err) => {
                // The check goes on with what was last read (agent.json's when nothing).
                tracing::warn!(
                    %err, user,
                    "could not read the user's own monthly budget; using the one read last"
                );
                self.last_known(user)
            }
        }
    }
}
