//! Each user's own monthly budget (`users set NAME --budget-monthly N`), read from the
//! store for the metering of every assembly the host builds, and kept a few seconds per
//! user so that a turn's many requests do not each read it.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use smallebot_application::metering::BudgetOverrides;

use crate::database::Database;

/// How long a user's budget read from the store is used before it is read again (a
/// `users set` reaches a running server within this).
pub const BUDGET_READ_EVERY: Duration = Duration::from_secs(5);

/// The users' own monthly budgets in the store, cached per user for
/// [`BUDGET_READ_EVERY`].
pub struct StoreBudgets {
    store: Database,
    read: Mutex<HashMap<String, (Instant, Option<i64>)>>,
}

impl StoreBudgets {
    /// Budgets read from `store`.
    #[must_use]
    pub fn new(store: Database) -> Self {
        Self {
            store,
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
        match self.store.user_account(user).await {
            Ok(account) => {
                let budget = account.and_then(|a| a.budget_monthly);
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
