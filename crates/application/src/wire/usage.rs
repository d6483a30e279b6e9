//! The usage report as the wire has it (`GET /api/usage`, `smallebot usage --json`):
//! the records summed by core's [`summarize`], made into [`UsageReport`] once for
//! both front ends.

use smallebot_core::entities::{UsageFilter, UsageRecord};
use smallebot_core::rules::cost::in_units;
use smallebot_core::rules::usage_report::{self, UsageGrouping, summarize};
use smallebot_core::time::format_timestamp;
use smallebot_protocol::api::{UsageCost, UsageGroup, UsageReport};

/// The word of a grouping, as `--by` and `?by=` take it.
#[must_use]
pub fn grouping_word(grouping: UsageGrouping) -> &'static str {
    match grouping {
        UsageGrouping::Day => "day",
        UsageGrouping::Model => "model",
        UsageGrouping::User => "user",
        UsageGrouping::Conversation => "conversation",
    }
}

/// `records` (those `filter` selected) summed by `by`, with the filter they were
/// selected by.
#[must_use]
pub fn report(filter: &UsageFilter, by: UsageGrouping, records: &[UsageRecord]) -> UsageReport {
    let (groups, total) = summarize(records, by);
    UsageReport {
        by: grouping_word(by).to_owned(),
        conversation: filter.conversation.map(|id| id.to_string()),
        groups: groups.iter().map(group).collect(),
        since: filter.since.as_ref().map(format_timestamp),
        total: group(&total),
        user: filter.user.clone(),
    }
}

/// One group: its counts, and its cost per currency in units and in picos.
#[must_use]
pub fn group(group: &usage_report::UsageGroup) -> UsageGroup {
    UsageGroup {
        cached_prompt_tokens: group.tokens.cached_prompt,
        completion_tokens: group.tokens.completion,
        cost: group
            .costs
            .iter()
            .map(|(currency, picos)| {
                let cost = UsageCost {
                    amount: in_units(*picos),
                    picos: *picos,
                };
                (currency.clone(), cost)
            })
            .collect(),
        key: group.key.clone(),
        prompt_tokens: group.tokens.prompt,
        reasoning_tokens: group.tokens.reasoning,
        requests: group.requests,
        unpriced_requests: group.unpriced,
        refused_requests: group.refused,
    }
}
