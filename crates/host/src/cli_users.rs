//! `smallebot users …`'s arguments (beside [`crate::cli`], which names the command).

use clap::Subcommand;

/// `smallebot users …`
#[derive(Debug, Subcommand)]
pub enum UsersCommand {
    /// Add a user and print their token — once: only its digest is stored.
    Add {
        /// The user's name (their conversations are stored under it).
        name: String,
        /// An admin: sees every user's usage (on the web page and `GET /api/usage`).
        #[arg(long)]
        admin: bool,
    },
    /// Change a user's settings.
    Set {
        /// The user's name.
        name: String,
        /// Their own monthly budget in the models' price currency (overrides agent.json
        /// budgets.perUserMonthly for them), or `none` to clear it.
        #[arg(long, value_name = "AMOUNT|none", value_parser = monthly_budget)]
        budget_monthly: MonthlyBudget,
    },
    /// Remove a user: their token stops working at once; their conversations stay.
    Remove {
        /// The user's name.
        name: String,
    },
    /// List the users: name, `admin` for admins, and their own monthly budget if set.
    List,
}

/// A `--budget-monthly` value: picos, or `None` to clear it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MonthlyBudget(pub Option<i64>);

fn monthly_budget(text: &str) -> Result<MonthlyBudget, String> {
    smallebot_core::rules::budget::parse_budget_setting(text).map(MonthlyBudget)
}
