//! A user of the web app as stored: their name, whether they administer the server, and
//! their own monthly budget.

use serde::{Deserialize, Serialize};

/// A stored user (`smallebot users add NAME [--admin]`, `users set NAME --budget-monthly`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct UserAccount {
    /// The user's name.
    pub name: String,
    /// Whether they see every user's usage (`users add --admin`).
    pub admin: bool,
    /// Their own monthly budget in picos of the price currency, overriding agent.json
    /// `budgets.perUserMonthly` for them; `None` leaves agent.json's.
    pub budget_monthly: Option<i64>,
}
