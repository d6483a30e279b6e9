//! `budgets` in agent.json: what a turn, a conversation and a user may spend, in the
//! currency of the models' prices ([`Budgets`]).
//!
//! ```json
//! { "budgets": { "perTurn": 0.5, "perConversation": 5,
//!                "perUserDaily": 10, "perUserMonthly": 100 } }
//! ```

use std::path::Path;

use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_core::rules::budget::Budgets;
use smallebot_core::rules::cost::amount_in_picos;

use super::ConfigError;

/// `budgets` as written; a key left out sets no limit.
#[derive(Debug, Default, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
#[schemars(extend("x-what" = "the budgets"))]
pub(super) struct RawBudgets {
    per_turn: Option<f64>,
    per_conversation: Option<f64>,
    per_user_daily: Option<f64>,
    per_user_monthly: Option<f64>,
}

impl RawBudgets {
    /// The limits in picos.
    ///
    /// # Errors
    /// [`ConfigError::Rule`] naming `file` and the key of an amount that is negative,
    /// not a number or over a million.
    pub(super) fn into_budgets(self, file: &Path) -> Result<Budgets, ConfigError> {
        let amount = |key: &str, value: Option<f64>| match value {
            None => Ok(None),
            Some(units) => amount_in_picos(units)
                .map(Some)
                .ok_or_else(|| ConfigError::Rule {
                    file: file.to_path_buf(),
                    message: format!(
                        "budgets.{key} is {units}: give an amount in the models' price currency, \
                     from 0 to 1000000"
                    ),
                }),
        };
        Ok(Budgets {
            per_turn: amount("perTurn", self.per_turn)?,
            per_conversation: amount("perConversation", self.per_conversation)?,
            per_user_daily: amount("perUserDaily", self.per_user_daily)?,
            per_user_monthly: amount("perUserMonthly", self.per_user_monthly)?,
        })
    }
}
