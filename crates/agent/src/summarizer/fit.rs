//! Fitting the summarizer's input into the window: drop tool results from the middle
//! outwards, then split into chunks.

use std::ops::Range;

use super::transcript::{Entry, EntryKind, OMITTED_RESULT};

/// How the entries are sent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FitPlan {
    /// Tool results replaced by a placeholder.
    pub dropped_results: usize,
    /// Consecutive ranges of entries, one summary request each (one range when it fits).
    pub chunks: Vec<Range<usize>>,
}

/// Rough tokens of the placeholder.
const OMITTED_TOKENS: u64 = 16;

/// Makes `entries` fit `budget` tokens (the previous summary takes `previous_tokens` of
/// it in the first request; later chunks carry the running summary, assumed no larger).
pub fn plan_fit(entries: &mut [Entry], budget: u64, previous_tokens: u64) -> FitPlan {
    let budget = budget.max(64);
    let available = budget.saturating_sub(previous_tokens).max(budget / 4);
    let total = |entries: &[Entry]| entries.iter().map(|e| e.tokens).sum::<u64>();
    let mut dropped = 0;
    if total(entries) > available {
        let middle = entries.len() / 2;
        let mut results: Vec<usize> = (0..entries.len())
            .filter(|i| entries[*i].kind == EntryKind::ToolResult)
            .collect();
        results.sort_by_key(|i| i.abs_diff(middle));
        for i in results {
            if total(entries) <= available {
                break;
            }
            entries[i].text = OMITTED_RESULT.to_owned();
            entries[i].tokens = OMITTED_TOKENS;
            dropped += 1;
        }
    }
    // An entry larger than a whole chunk is cut so every chunk can fit.
    for entry in entries.iter_mut() {
        if entry.tokens > available {
            let keep_chars = usize::try_from(available.saturating_mul(3)).unwrap_or(usize::MAX);
            entry.text = format!(
                "{} … [cut to fit]",
                entry.text.chars().take(keep_chars).collect::<String>()
            );
            entry.tokens = available;
        }
    }
    let mut chunks = Vec::new();
    let mut start = 0;
    let mut size = 0;
    for (i, entry) in entries.iter().enumerate() {
        if size + entry.tokens > available && i > start {
            chunks.push(start..i);
            start = i;
            size = 0;
        }
        size += entry.tokens;
    }
    if start < entries.len() || chunks.is_empty() {
        chunks.push(start..entries.len());
    }
    FitPlan {
        dropped_results: dropped,
        chunks,
    }
}

#[cfg(test)]
#[allow(clippy::single_range_in_vec_init)]
mod tests {
    use super::*;

    fn entries(spec: &[(EntryKind, u64)]) -> Vec<Entry> {
        spec.iter()
            .enumerate()
            .map(|(i, (kind, tokens))| Entry {
                kind: *kind,
                text: format!("e{i}"),
                tokens: *tokens,
            })
            .collect()
    }

    #[test]
    fn fits_without_changes_when_small() {
        let mut e = entries(&[(EntryKind::User, 10), (EntryKind::ToolResult, 10)]);
        let plan = plan_fit(&mut e, 1000, 0);
        assert_eq!(
            plan,
            FitPlan {
                dropped_results: 0,
                chunks: vec![0..2]
            }
        );
    }

    #[test]
    fn drops_middle_results_first() {
        use EntryKind::*;
        let mut e = entries(&[
            (User, 10),
            (ToolResult, 100),
            (ToolResult, 100),
            (ToolResult, 100),
            (Assistant, 10),
        ]);
        let plan = plan_fit(&mut e, 250, 0);
        assert_eq!(plan.dropped_results, 1);
        assert_eq!(plan.chunks, vec![0..5]);
        assert_eq!(e[2].text, OMITTED_RESULT, "the middle one goes first");
        assert_eq!(e[1].text, "e1");
    }

    #[test]
    fn chunks_when_dropping_results_is_not_enough() {
        use EntryKind::*;
        let mut e = entries(&[
            (User, 60),
            (Assistant, 60),
            (User, 60),
            (Assistant, 60),
            (User, 60),
        ]);
        let plan = plan_fit(&mut e, 130, 0);
        assert_eq!(plan.dropped_results, 0);
        assert_eq!(plan.chunks, vec![0..2, 2..4, 4..5]);
    }
}
