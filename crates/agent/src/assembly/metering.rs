//! What the assembly meters with: the models' prices, the budgets and each user's own
//! monthly budget. Every model request of a built agent goes through a
//! [`MeteredModel`]: recorded always, checked against budgets when prices are known.

use std::collections::HashMap;
use std::sync::Arc;

use smallebot_application::metering::{BudgetOverrides, MeteredModel, NoOverrides, UsageObserver};
use smallebot_application::ports::ChatModel;
use smallebot_core::repository::Store;
use smallebot_core::rules::budget::Budgets;
use smallebot_core::rules::cost::Pricing;

use crate::config::ResolvedModels;

/// Prices, budgets and per-user budgets of an assembly.
#[derive(Clone)]
pub struct Metering {
    /// Prices by model id (models.json `pricing`).
    pub prices: HashMap<String, Pricing>,
    /// agent.json `budgets`.
    pub budgets: Budgets,
    /// Each user's own monthly budget, where one is set.
    pub overrides: Arc<dyn BudgetOverrides>,
    /// The id of the model summaries go to (models.json `compactionModel`).
    pub summary_model: Option<String>,
    /// Shown every usage record (the process's metrics), when given.
    pub observer: Option<Arc<dyn UsageObserver>>,
}

impl Default for Metering {
    fn default() -> Self {
        Self {
            prices: HashMap::new(),
            budgets: Budgets::default(),
            overrides: Arc::new(NoOverrides),
            summary_model: None,
            observer: None,
        }
    }
}

impl std::fmt::Debug for Metering {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metering")
            .field("prices", &self.prices)
            .field("budgets", &self.budgets)
            .finish_non_exhaustive()
    }
}

impl Metering {
    /// The prices models.json gives its models, and summaries priced as the compaction
    /// model's.
    pub(super) fn priced_by(&mut self, models: &ResolvedModels) {
        self.prices = models
            .choices
            .iter()
            .chain([&models.chat, &models.compaction])
            .filter_map(|m| Some((m.settings.id.clone(), m.settings.pricing.clone()?)))
            .collect();
        self.summary_model = Some(models.compaction.settings.id.clone());
    }

    /// `model` metered into `store`.
    pub(super) fn wrap(
        self,
        model: Arc<dyn ChatModel>,
        store: &Arc<dyn Store>,
    ) -> Arc<dyn ChatModel> {
        Arc::new(
            MeteredModel::new(
                model,
                Arc::clone(store) as _,
                self.prices,
                self.budgets,
                self.overrides,
            )
            .with_summary_model(self.summary_model)
            .with_observer(self.observer),
        )
    }
}
