//! Metering: every model request that carries its billing ([`RequestBilling`]) — a
//! turn's steps, a sub-agent's, titles and summaries — is checked against the budgets
//! before it is sent and recorded once it ended ([`UsageRecord`]: the tokens the
//! provider reported, their cost at the model's prices, time to first token,
//! duration, retries, outcome).
//!
//! [`MeteredModel`] wraps the chat model, so every caller is metered alike and none
//! of them knows prices or budgets. A record is queued with the store
//! ([`UsageRepository::record_usage`]), never awaited: it is written with the turn's
//! next write, so metering adds no commit to a turn's path.

mod gate;
mod store_budgets;

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use async_trait::async_trait;
use smallebot_core::entities::{TokenCounts, UsageOutcome, UsagePurpose, UsageRecord};
use smallebot_core::repository::UsageRepository;
use smallebot_core::rules::budget::Budgets;
use smallebot_core::rules::cost::{Pricing, cost};
use std::sync::OnceLock;

use crate::ports::{
    ChatModel, DeltaSink, ModelChoice, ModelDelta, ModelError, ModelRequest, ModelResponse,
    ModelUsage, RequestBilling, RequestPurpose, ServerCheck,
};

use gate::{BudgetGate, Reservation};
pub use gate::{BudgetOverrides, NoOverrides};
pub use store_budgets::{BUDGET_READ_EVERY, MonthlyBudgets, StoreBudgets};

/// A chat model whose billed requests are checked against budgets and recorded.
pub struct MeteredModel {
    inner: Arc<dyn ChatModel>,
    usage: Arc<dyn UsageRepository>,
    /// Prices by model id (models.json `pricing`).
    prices: HashMap<String, Pricing>,
    /// The id of the model summaries go to when they name none (models.json
    /// `compactionModel`).
    summary_model: Option<String>,
    gate: BudgetGate,
    /// Shown every record (the process's metrics), when one is given.
    observer: Option<Arc<dyn UsageObserver>>,
}

/// Is shown each model request's usage record as it is made (the process's metrics
/// count tokens and cost from them).
pub trait UsageObserver: Send + Sync {
    /// One model request ended (or was refused by a budget) with `record`.
    fn recorded(&self, record: &UsageRecord);
}

impl std::fmt::Debug for MeteredModel {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MeteredModel")
            .field("prices", &self.prices)
            .finish_non_exhaustive()
    }
}

impl MeteredModel {
    /// Meters `inner`'s billed requests into `usage`, at `prices` (by model id), within
    /// `budgets` (each user's monthly one as `overrides` says).
    #[must_use]
    pub fn new(
        inner: Arc<dyn ChatModel>,
        usage: Arc<dyn UsageRepository>,
        prices: HashMap<String, Pricing>,
        budgets: Budgets,
        overrides: Arc<dyn BudgetOverrides>,
    ) -> Self {
        Self {
            gate: BudgetGate::new(budgets, overrides, Arc::clone(&usage)),
            inner,
            usage,
            prices,
            summary_model: None,
            observer: None,
        }
    }

    /// Shows every record to `observer` too.
    #[must_use]
    pub fn with_observer(mut self, observer: Option<Arc<dyn UsageObserver>>) -> Self {
        self.observer = observer;
        self
    }

    /// Summaries that name no model go to `id` (the client sends them to the
    /// compaction model): they are recorded and priced as its.
    #[must_use]
    pub fn with_summary_model(mut self, id: Option<String>) -> Self {
        self.summary_model = id;
        self
    }

    /// The id of the model `request` goes to: the one it names among the choices, the
    /// compaction model for a summary naming none, else the default model.
    #[must_use]
    pub fn model_of(&self, request: &ModelRequest) -> String {
        match (&request.model, request.purpose, &self.summary_model) {
            (None, RequestPurpose::Summary, Some(id)) => id.clone(),
            (model, ..) => self.inner.model_name(model.as_deref()),
        }
    }
}

/// What a request's record is made of, filled in as it runs; recorded once, when the
/// request ends — also when its future is dropped (the turn was cancelled).
struct Meter<'a> {
    owner: &'a MeteredModel,
    billing: &'a RequestBilling,
    purpose: UsagePurpose,
    model: String,
    pricing: Option<&'a Pricing>,
    reservation: Option<Reservation>,
    started: Instant,
    first_piece: OnceLock<Instant>,
    retries: AtomicU32,
    done: bool,
}

impl Meter<'_> {
    /// Records how the request ended and frees its reservation.
    fn finish(&mut self, outcome: UsageOutcome, usage: Option<ModelUsage>) {
        self.done = true;
        let tokens = usage.map(|u| TokenCounts {
            prompt: u.prompt_tokens,
            cached_prompt: u.cached_tokens.unwrap_or(0),
            completion: u.completion_tokens,
            reasoning: u.reasoning_tokens.unwrap_or(0),
        });
        let priced = self.pricing.zip(tokens);
        let record = UsageRecord {
            account: self.billing.account.clone(),
            purpose: self.purpose,
            model: self.model.clone(),
            tokens,
            cost: priced.map(|(pricing, tokens)| cost(pricing, &tokens)),
            currency: priced.map(|(pricing, _)| pricing.currency.clone()),
            first_token_ms: self
                .first_piece
                .get()
                .map(|at| millis(at.duration_since(self.started))),
            duration_ms: millis(self.started.elapsed()),
            retries: self.retries.load(Ordering::Relaxed),
            outcome,
            at: chrono::Utc::now(),
        };
        if let Some(observer) = &self.owner.observer {
            observer.recorded(&record);
        }
        // Queued before the reservation goes: a budget check in between counts it
        // twice (never not at all).
        self.owner.usage.record_usage(record);
        if let Some(reservation) = self.reservation.take() {
            self.owner.gate.release(reservation);
        }
    }
}

impl Drop for Meter<'_> {
    fn drop(&mut self) {
        if !self.done {
            self.finish(UsageOutcome::Cancelled, None);
        }
    }
}

fn millis(duration: std::time::Duration) -> u64 {
    u64::try_from(duration.as_millis()).unwrap_or(u64::MAX)
}

fn purpose_of(purpose: RequestPurpose) -> UsagePurpose {
    match purpose {
        RequestPurpose::Title => UsagePurpose::Title,
        RequestPurpose::Summary => UsagePurpose::Summary,
        _ => UsagePurpose::Chat,
    }
}

#[async_trait]
impl ChatModel for MeteredModel {
    async fn complete(
        &self,
        request: &ModelRequest,
        on_delta: DeltaSink<'_>,
    ) -> Result<ModelResponse, ModelError> {
        let Some(billing) = &request.billing else {
            return self.inner.complete(request, on_delta).await;
        };
        let model_id = request.model.as_deref();
        let model = self.model_of(request);
        let pricing = self.prices.get(&model);
        let max_tokens = request
            .max_tokens
            .or_else(|| self.inner.max_output_tokens(model_id));
        let mut meter = Meter {
            owner: self,
            billing,
            purpose: purpose_of(request.purpose),
            model,
            pricing,
            reservation: None,
            started: Instant::now(),
            first_piece: OnceLock::new(),
            retries: AtomicU32::new(0),
            done: false,
        };
        if let Some(pricing) = pricing {
            match self.gate.admit(billing, pricing, max_tokens).await {
                Ok(reservation) => meter.reservation = reservation,
                Err(stop) => {
                    meter.finish(UsageOutcome::OverBudget, None);
                    return Err(stop);
                }
            }
        }
        let sink = |delta: ModelDelta| {
            match &delta {
                ModelDelta::Retrying(_) => {
                    meter.retries.fetch_add(1, Ordering::Relaxed);
                }
                _ => {
                    meter.first_piece.get_or_init(Instant::now);
                }
            }
            on_delta(delta);
        };
        let result = self.inner.complete(request, &sink).await;
        match &result {
            Ok(response) => meter.finish(UsageOutcome::Ok, response.usage),
            Err(_) => meter.finish(UsageOutcome::Failed, None),
        }
        result
    }

    fn choices(&self) -> &[ModelChoice] {
        self.inner.choices()
    }

    fn supports_images(&self, model: Option<&str>) -> bool {
        self.inner.supports_images(model)
    }

    fn serves_one_at_a_time(&self, model: Option<&str>) -> bool {
        self.inner.serves_one_at_a_time(model)
    }

    async fn check_server(&self, model: Option<&str>) -> Option<ServerCheck> {
        self.inner.check_server(model).await
    }

    fn max_output_tokens(&self, model: Option<&str>) -> Option<u32> {
        self.inner.max_output_tokens(model)
    }

    fn model_name(&self, model: Option<&str>) -> String {
        self.inner.model_name(model)
    }
}
