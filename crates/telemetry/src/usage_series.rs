//! Tokens and cost by model from the usage records (`MeteredModel` shows each one to
//! [`crate::Metrics`]): by the models.json id the request was billed to, with the
//! user as a label only when the server was asked for it (`metricsPerUser`).

use prometheus_client::encoding::{EncodeLabel, EncodeLabelSet, LabelSetEncoder};
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::registry::Registry;
use smallebot_core::entities::UsageRecord;
use smallebot_core::rules::cost::in_units;

use crate::series::register;

/// Tokens of a model by kind (and user, when counted per user).
#[derive(Debug, Clone, Hash, PartialEq, Eq)]
pub struct UsageTokenLabels {
    /// The models.json id.
    pub model: String,
    /// `prompt`, `cached_prompt` (part of prompt), `completion` or `reasoning` (part
    /// of completion).
    pub kind: &'static str,
    /// The user billed; `None` leaves the label out.
    pub user: Option<String>,
}

/// A model's cost in one currency (and user, when counted per user).
#[derive(Debug, Clone, Hash, PartialEq, Eq)]
pub struct UsageCostLabels {
    /// The models.json id.
    pub model: String,
    /// The currency of its prices (`USD`).
    pub currency: String,
    /// The user billed; `None` leaves the label out.
    pub user: Option<String>,
}

fn encode_user(user: Option<&String>, encoder: &mut LabelSetEncoder) -> std::fmt::Result {
    match user {
        Some(user) => ("user", user.as_str()).encode(encoder.encode_label()),
        None => Ok(()),
    }
}

impl EncodeLabelSet for UsageTokenLabels {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> std::fmt::Result {
        ("model", self.model.as_str()).encode(encoder.encode_label())?;
        ("kind", self.kind).encode(encoder.encode_label())?;
        encode_user(self.user.as_ref(), encoder)
    }
}

impl EncodeLabelSet for UsageCostLabels {
    fn encode(&self, encoder: &mut LabelSetEncoder) -> std::fmt::Result {
        ("model", self.model.as_str()).encode(encoder.encode_label())?;
        ("currency", self.currency.as_str()).encode(encoder.encode_label())?;
        encode_user(self.user.as_ref(), encoder)
    }
}

/// The series the usage records fill.
#[derive(Debug)]
pub struct UsageSeries {
    /// Tokens billed, by model, kind (and user).
    pub tokens: Family<UsageTokenLabels, Counter>,
    /// Cost in currency units at models.json prices, by model, currency (and user).
    pub cost: Family<UsageCostLabels, Counter<f64, std::sync::atomic::AtomicU64>>,
}

impl UsageSeries {
    /// The series, registered in `registry`.
    pub(crate) fn register(registry: &mut Registry) -> Self {
        let tokens = register(
            registry,
            "usage_tokens",
            "Tokens of model requests as the providers reported them, by models.json id and \
             kind (and user with metricsPerUser)",
            Family::<UsageTokenLabels, Counter>::default(),
        );
        let cost = register(
            registry,
            "usage_cost",
            "Cost of model requests at models.json prices in currency units, by model and \
             currency (and user with metricsPerUser); unpriced models add nothing",
            Family::<UsageCostLabels, Counter<f64, std::sync::atomic::AtomicU64>>::default(),
        );
        Self { tokens, cost }
    }

    /// Counts `record`, with its user as a label when `per_user`.
    pub(crate) fn count(&self, record: &UsageRecord, per_user: bool) {
        let user = per_user.then(|| record.account.user_name.clone());
        if let Some(tokens) = record.tokens {
            for (kind, count) in [
                ("prompt", tokens.prompt),
                ("cached_prompt", tokens.cached_prompt),
                ("completion", tokens.completion),
                ("reasoning", tokens.reasoning),
            ] {
                let labels = UsageTokenLabels {
                    model: record.model.clone(),
                    kind,
                    user: user.clone(),
                };
                self.tokens.get_or_create(&labels).inc_by(count);
            }
        }
        if let (Some(picos), Some(currency)) = (record.cost, &record.currency) {
            let labels = UsageCostLabels {
                model: record.model.clone(),
                currency: currency.clone(),
                user,
            };
            self.cost.get_or_create(&labels).inc_by(in_units(picos));
        }
    }
}

#[cfg(test)]
mod tests {
    use smallebot_application::metering::UsageObserver;
    use smallebot_core::entities::{TokenCounts, UsageRecord};

    use crate::Metrics;

    fn record(user: &str, cost: Option<i64>) -> UsageRecord {
        let tokens = TokenCounts {
            prompt: 1000,
            cached_prompt: 200,
            completion: 100,
            reasoning: 30,
        };
        let at = smallebot_core::time::parse_timestamp("2026-03-01T12:00:00Z").unwrap();
        UsageRecord::example(user, "big", Some(tokens), cost, at)
    }

    #[test]
    fn tokens_and_cost_by_model_and_by_user_only_when_asked() {
        let metrics = Metrics::new();
        metrics.recorded(&record("ann", Some(2_500_000_000)));
        metrics.recorded(&record("bob", Some(500_000_000)));
        metrics.recorded(&record("bob", None));
        let text = metrics.render();
        for line in [
            "smallebot_usage_tokens_total{model=\"big\",kind=\"prompt\"} 3000",
            "smallebot_usage_tokens_total{model=\"big\",kind=\"cached_prompt\"} 600",
            "smallebot_usage_tokens_total{model=\"big\",kind=\"completion\"} 300",
            "smallebot_usage_tokens_total{model=\"big\",kind=\"reasoning\"} 90",
            "smallebot_usage_cost_total{model=\"big\",currency=\"USD\"} 0.003",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
        assert!(!text.contains("user="), "{text}");
        metrics.count_per_user(true);
        metrics.recorded(&record("ann", Some(1_000_000_000)));
        let text = metrics.render();
        for line in [
            "smallebot_usage_tokens_total{model=\"big\",kind=\"prompt\",user=\"ann\"} 1000",
            "smallebot_usage_cost_total{model=\"big\",currency=\"USD\",user=\"ann\"} 0.001",
        ] {
            assert!(text.contains(line), "{line} in {text}");
        }
    }
}
