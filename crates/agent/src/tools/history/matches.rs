//! Search hits shown in context: each hit with the row before and after it, formatted
//! the same way for the `SearchHistory` tool, `smallebot conversations search` and the
//! chat REPL's `/search`.
//!
//! The rows around a hit are the conversation's messages and tool calls in `seq` order,
//! where a tool call counts as two rows, `TOOL CALL: Name(args)` then `TOOL RESULT:
//! result` (no result row while it runs). Think blocks are not searched and never shown.
//! Replaced (edited-away) messages and rows already summarized by context compression
//! are included: search covers everything stored.
//!
//! Hits on calls of the history tools themselves (`SearchHistory`,
//! `ReadConversationData`) are skipped: their arguments and results quote the search,
//! so they would otherwise echo every earlier search back, newest first.

use std::collections::HashSet;

use smallebot_core::entities::{HistoryRow, Role, SearchHit, SearchHitKind, SearchQuery, Seq};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::{RepoResult, Store};
use smallebot_core::rules::attachment_text::attachment_label;
use smallebot_core::rules::truncation::truncate_with_marker;

use super::names::{READ_CONVERSATION_DATA, SEARCH_HISTORY};

/// Each shown text is cut to this many characters (with `…`).
pub const SNIPPET_MAX_CHARS: usize = 300;
/// Tools whose calls are never shown as hits (they quote earlier searches).
const SELF_QUOTING_TOOLS: &[&str] = &[SEARCH_HISTORY, READ_CONVERSATION_DATA];
/// Extra hits fetched beyond the limit, to make up for skipped self-quoting hits.
const FETCH_SLACK: u32 = 20;
/// Never fetch more hits than this for one search.
const MAX_FETCH: u32 = 2_000;

/// One shown row: its label and text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatchLine {
    /// What the row is (gives the label).
    pub kind: SearchHitKind,
    /// Its full text (cut when formatted).
    pub text: String,
}

/// A hit with the rows just before and after it.
#[derive(Debug, Clone, PartialEq)]
pub struct SearchMatch {
    /// The hit.
    pub hit: SearchHit,
    /// The row before it, if any.
    pub before: Option<MatchLine>,
    /// The row after it, if any.
    pub after: Option<MatchLine>,
}

/// Rows fetched on each side of a hit to find its neighbours (think blocks and the
/// empty assistant rows that open a tool step show nothing and are passed over).
const NEIGHBOUR_ROWS: u32 = 3;

/// The searchable rows of one stored row: a message with text is one, after one for
/// each of its attachments (their hits come before the message at its `seq`), a tool
/// call two (call and result), a think block or an empty message none.
fn lines_of(row: &HistoryRow) -> Vec<(Seq, MatchLine)> {
    let line = |kind, text: &str| {
        (
            row.seq(),
            MatchLine {
                kind,
                text: text.to_owned(),
            },
        )
    };
    match row {
        HistoryRow::Message(m) => {
            let mut lines: Vec<_> = m
                .attachments
                .iter()
                .map(|a| line(SearchHitKind::Attachment, &attachment_label(a)))
                .collect();
            let kind = match m.role {
                Role::User => SearchHitKind::User,
                Role::Assistant => SearchHitKind::Assistant,
            };
            if !m.content.trim().is_empty() {
                lines.push(line(kind, &m.content));
            }
            lines
        }
        HistoryRow::ToolCall(c) => {
            let mut lines = vec![line(
                SearchHitKind::ToolCall,
                &format!("{}({})", c.tool_name, c.arguments),
            )];
            if let Some(result) = &c.result {
                lines.push(line(SearchHitKind::ToolResult, result));
            }
            lines
        }
        HistoryRow::ThinkBlock(_) => Vec::new(),
    }
}

/// Loads the rows around `hit`; `None` when the hit is a self-quoting tool call.
async fn in_context(store: &dyn Store, hit: SearchHit) -> RepoResult<Option<SearchMatch>> {
    let rows = store
        .rows_around(hit.conversation_id, hit.seq, NEIGHBOUR_ROWS, NEIGHBOUR_ROWS)
        .await?;
    let self_quoting = rows.iter().any(|row| {
        matches!(row, HistoryRow::ToolCall(c)
            if c.seq == hit.seq && SELF_QUOTING_TOOLS.contains(&c.tool_name.as_str()))
    });
    if self_quoting
        && matches!(
            hit.kind,
            SearchHitKind::ToolCall | SearchHitKind::ToolResult
        )
    {
        return Ok(None);
    }
    let lines: Vec<(Seq, MatchLine)> = rows.iter().flat_map(lines_of).collect();
    let at = lines
        .iter()
        .position(|(seq, line)| *seq == hit.seq && line.kind == hit.kind);
    let (before, after) = match at {
        Some(i) => (
            i.checked_sub(1)
                .and_then(|j| lines.get(j))
                .map(|(_, l)| l.clone()),
            lines.get(i + 1).map(|(_, l)| l.clone()),
        ),
        // The row vanished between the search and this read (deleted meanwhile).
        None => (None, None),
    };
    Ok(Some(SearchMatch { hit, before, after }))
}

/// Runs `query` and loads each hit's neighbours: at most `query.limit` matches, newest
/// first, skipping hits on the history tools' own calls.
///
/// # Errors
/// Storage failures.
pub async fn find_matches(store: &dyn Store, query: &SearchQuery) -> RepoResult<Vec<SearchMatch>> {
    let wanted = query.limit as usize;
    let mut found = Vec::new();
    if wanted == 0 {
        return Ok(found);
    }
    let mut seen: HashSet<(ConversationId, Seq, SearchHitKind)> = HashSet::new();
    let mut fetch = query.limit.saturating_add(FETCH_SLACK).min(MAX_FETCH);
    loop {
        let hits = store
            .search(&SearchQuery {
                limit: fetch,
                ..query.clone()
            })
            .await?;
        let exhausted = hits.len() < fetch as usize;
        for hit in hits {
            if !seen.insert((hit.conversation_id, hit.seq, hit.kind)) {
                continue;
            }
            if let Some(shown) = in_context(store, hit).await? {
                found.push(shown);
                if found.len() >= wanted {
                    return Ok(found);
                }
            }
        }
        if exhausted || fetch >= MAX_FETCH {
            return Ok(found);
        }
        fetch = fetch.saturating_mul(4).min(MAX_FETCH);
    }
}

fn push_line(out: &mut String, line: &MatchLine, hit: bool) {
    if hit {
        out.push_str("→ ");
    }
    out.push_str(line.kind.label());
    out.push_str(": ");
    out.push_str(&truncate_with_marker(&line.text, SNIPPET_MAX_CHARS, "…"));
    out.push('\n');
}

/// Formats matches, one block each, separated by a blank line:
///
/// ```text
/// ## Match 1 — <conversation title> | YYYY-MM-DD HH:MM   (UTC, when the hit was written)
/// USER: the row before
/// → TOOL CALL: the hit
/// TOOL RESULT: the row after
/// ```
///
/// Every text is cut to [`SNIPPET_MAX_CHARS`] characters. With no matches the answer is
/// exactly `No matches found for '<query_text>'.`
#[must_use]
pub fn format_matches(query_text: &str, matches: &[SearchMatch]) -> String {
    format_matches_with(query_text, matches, false)
}

/// As [`format_matches`]; with `ids`, each header ends with ` | conversation <id>` (for
/// people, who open it with `/switch` or `chat --conversation`).
#[must_use]
pub fn format_matches_with(query_text: &str, matches: &[SearchMatch], ids: bool) -> String {
    if matches.is_empty() {
        return format!("No matches found for '{query_text}'.");
    }
    let mut out = String::new();
    for (n, m) in matches.iter().enumerate() {
        if n > 0 {
            out.push('\n');
        }
        out.push_str(&format!(
            "## Match {} — {} | {}",
            n + 1,
            m.hit.conversation_title,
            m.hit.created_at.format("%Y-%m-%d %H:%M")
        ));
        if ids {
            out.push_str(&format!(" | conversation {}", m.hit.conversation_id));
        }
        out.push('\n');
        if let Some(before) = &m.before {
            push_line(&mut out, before, false);
        }
        let hit = MatchLine {
            kind: m.hit.kind,
            text: m.hit.text.clone(),
        };
        push_line(&mut out, &hit, true);
        if let Some(after) = &m.after {
            push_line(&mut out, after, false);
        }
    }
    out.truncate(out.trim_end().len());
    out
}

/// [`find_matches`] then [`format_matches`] (the empty answer names `query.text`).
///
/// # Errors
/// Storage failures.
pub async fn search_and_format(store: &dyn Store, query: &SearchQuery) -> RepoResult<String> {
    let matches = find_matches(store, query).await?;
    Ok(format_matches(&query.text, &matches))
}

/// [`find_matches`] then [`format_matches_with`] the conversation ids, for people
/// (`conversations search`, `/search`).
///
/// # Errors
/// Storage failures.
pub async fn search_for_people(store: &dyn Store, query: &SearchQuery) -> RepoResult<String> {
    let matches = find_matches(store, query).await?;
    Ok(format_matches_with(&query.text, &matches, true))
}

#[cfg(test)]
mod tests {
    use super::*;
    use chrono::TimeZone;

    #[test]
    fn formats_blocks_with_the_hit_marked_and_texts_cut() {
        let hit = SearchHit {
            conversation_id: ConversationId::new(),
            conversation_title: "Disk".into(),
            seq: 4,
            kind: SearchHitKind::ToolCall,
            text: "ExecuteCommand({\"command\":\"df\"})".into(),
            created_at: chrono::Utc.with_ymd_and_hms(2026, 1, 2, 3, 4, 5).unwrap(),
        };
        let m = SearchMatch {
            hit: hit.clone(),
            before: Some(MatchLine {
                kind: SearchHitKind::User,
                text: "é".repeat(301),
            }),
            after: None,
        };
        let text = format_matches("df", &[m.clone(), m]);
        let block = |n: usize| {
            format!(
                "## Match {n} — Disk | 2026-01-02 03:04\nUSER: {}…\n→ TOOL CALL: {}",
                "é".repeat(300),
                hit.text
            )
        };
        assert_eq!(text, format!("{}\n\n{}", block(1), block(2)));
        assert_eq!(format_matches("x y", &[]), "No matches found for 'x y'.");
    }
}
