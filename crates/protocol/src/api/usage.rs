//! `GET /api/usage` (and `smallebot usage --json`, the same body): recorded model
//! requests summed by day, model, user or conversation.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// The usage report. Fields are in the order `smallebot usage --json` has always
/// written them (alphabetical).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UsageReport {
    /// What the requests are summed by: `day`, `model`, `user` or `conversation`.
    pub by: String,
    /// Only this conversation's requests (its sub-agents' included), when asked for.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub conversation: Option<String>,
    /// The groups, in key order.
    pub groups: Vec<UsageGroup>,
    /// Only requests that ended from this moment on (RFC 3339), when asked for.
    pub since: Option<String>,
    /// The sum of every group.
    pub total: UsageGroup,
    /// Only this user's requests, when asked for.
    pub user: Option<String>,
}

/// The sum of one group of requests.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UsageGroup {
    /// Prompt tokens the server took from its cache.
    pub cached_prompt_tokens: u64,
    /// Completion tokens, reasoning included.
    pub completion_tokens: u64,
    /// The cost per currency (empty when nothing was priced; never a made-up cost).
    pub cost: BTreeMap<String, UsageCost>,
    /// The day (`2026-03-15`, UTC), model id, user or conversation id; `total` for the
    /// total.
    pub key: String,
    /// Prompt tokens, cached ones included.
    pub prompt_tokens: u64,
    /// Completion tokens spent reasoning.
    pub reasoning_tokens: u64,
    /// How many requests.
    pub requests: u64,
    /// How many requests reported tokens but had no price in models.json.
    pub unpriced_requests: u64,
    /// Requests a budget refused before they were sent (not among `requests`).
    pub refused_requests: u64,
}

/// An amount of one currency.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct UsageCost {
    /// In currency units (exact for sums below about nine thousand units).
    pub amount: f64,
    /// In picos (10^-12 of the unit), exact.
    pub picos: i64,
}
