//! The assembly's metering setters (what [`super::Metering`] holds).

use std::collections::HashMap;
use std::sync::Arc;

use smallebot_application::metering::{BudgetOverrides, UsageObserver};
use smallebot_core::rules::budget::Budgets;
use smallebot_core::rules::cost::Pricing;

use super::AgentAssembly;

impl AgentAssembly {
    /// Prices by model id and the budgets (from the home: models.json `pricing`,
    /// agent.json `budgets`).
    #[must_use]
    pub fn prices_and_budgets(
        mut self,
        prices: HashMap<String, Pricing>,
        budgets: Budgets,
    ) -> Self {
        self.metering.prices = prices;
        self.metering.budgets = budgets;
        self
    }

    /// Where each user's own monthly budget is read (`users set NAME --budget-monthly`).
    #[must_use]
    pub fn budget_overrides(mut self, overrides: Arc<dyn BudgetOverrides>) -> Self {
        self.metering.overrides = overrides;
        self
    }

    /// Shows every model request's usage record to `observer` (the process's metrics).
    #[must_use]
    pub fn usage_observer(mut self, observer: Arc<dyn UsageObserver>) -> Self {
        self.metering.observer = Some(observer);
        self
    }

    /// What the built agent meters with.
    #[must_use]
    pub fn metering(&self) -> &super::Metering {
        &self.metering
    }
}
