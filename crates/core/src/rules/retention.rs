//! Which checkpoint contents retention prunes: those last needed longer ago than the
//! age limit, then, oldest first, as many as it takes to bring the rest within the
//! total size limit.

use crate::time::Timestamp;

/// One kept checkpoint content, as retention sees it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeptContent {
    /// Its SHA-256 (lowercase hex).
    pub sha256: String,
    /// Its size in bytes.
    pub size: u64,
    /// When it was last needed: the newest of when it was kept and when a change
    /// naming it (before or after) was stored. A content a young change still names is
    /// therefore young, however long ago it was first kept.
    pub last_used: Timestamp,
}

/// The contents of `kept` to prune at `now`: every one last used more than
/// `max_age_days` ago, then the oldest of the others (by last use, then digest) until
/// what remains is at most `max_total_bytes`. Oldest first.
#[must_use]
pub fn contents_to_prune(
    kept: &[KeptContent],
    now: Timestamp,
    max_age_days: u64,
    max_total_bytes: u64,
) -> Vec<KeptContent> {
    let days = i64::try_from(max_age_days).unwrap_or(i64::MAX);
    let oldest_kept = chrono::TimeDelta::try_days(days)
        .and_then(|age| now.checked_sub_signed(age))
        .unwrap_or(Timestamp::MIN_UTC);
    let mut by_age: Vec<&KeptContent> = kept.iter().collect();
    by_age.sort_by(|a, b| (a.last_used, &a.sha256).cmp(&(b.last_used, &b.sha256)));
    let mut total: u64 = kept.iter().map(|c| c.size).fold(0, u64::saturating_add);
    let mut pruned = Vec::new();
    for content in by_age {
        if content.last_used < oldest_kept || total > max_total_bytes {
            total = total.saturating_sub(content.size);
            pruned.push(content.clone());
        }
    }
    pruned
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(days_ago: i64) -> Timestamp {
        now() - chrono::TimeDelta::days(days_ago)
    }

    fn now() -> Timestamp {
        crate::time::parse_timestamp("2026-11-29T00:00:00.000Z").unwrap()
    }

    fn kept(tag: char, size: u64, days_ago: i64) -> KeptContent {
        KeptContent {
            sha256: tag.to_string().repeat(64),
            size,
            last_used: at(days_ago),
        }
    }

    #[test]
    fn contents_to_prune_table() {
        let a = kept('a', 10, 40);
        let b = kept('b', 20, 10);
        let c = kept('c', 30, 1);
        let d = kept('d', 5, 10);
        let all = vec![a.clone(), b.clone(), c.clone(), d.clone()];
        // (contents, max age days, max total, pruned tags in order)
        let rows: Vec<(Vec<KeptContent>, u64, u64, &str)> = vec![
            (vec![], 30, 0, ""),
            (all.clone(), 30, u64::MAX, "a"),
            (all.clone(), 365, u64::MAX, ""),
            (all.clone(), 5, u64::MAX, "abd"),
            // 65 bytes in all; within 35 takes a (10) then b (20); d is as old as b
            // but its digest sorts after, so it goes next only if needed.
            (all.clone(), 365, 35, "ab"),
            (all.clone(), 365, 34, "abd"),
            (all.clone(), 365, 0, "abdc"),
            (all.clone(), 30, 65, "a"),
            // a content exactly at the age limit is kept
            (vec![kept('e', 1, 30)], 30, u64::MAX, ""),
            (vec![kept('e', 1, 31)], 30, u64::MAX, "e"),
            (vec![kept('f', 1, 0)], 0, u64::MAX, ""),
            (vec![kept('f', 1, 0)], u64::MAX, 0, "f"),
        ];
        for (contents, days, total, want) in rows {
            let got: String = contents_to_prune(&contents, now(), days, total)
                .iter()
                .map(|c| c.sha256.chars().next().unwrap_or('?'))
                .collect();
            assert_eq!(got, want, "days {days}, total {total}");
        }
    }
}
