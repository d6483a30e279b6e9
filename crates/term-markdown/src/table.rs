//! Tables laid out to the width: columns at their natural width when they fit, else
//! shrunk fairly (cells wrapped inside their column); when even narrow columns cannot
//! fit, each row is shown as `header: value` lines instead.

use crate::style::{Line, Look, Span, line_width};
use crate::wrap::{Align, pad, wrap};

/// Columns between two cells (` │ `).
const SEPARATOR: usize = 3;
/// The narrowest a shrunk column gets (or its natural width, when smaller).
const MIN_COLUMN: usize = 6;

/// The width of each column for cells whose widest content is `natural`, in `width`
/// columns of terminal; `None` when the columns cannot fit even shrunk.
pub fn column_widths(natural: &[usize], width: usize) -> Option<Vec<usize>> {
    let natural: Vec<usize> = natural.iter().map(|w| (*w).max(1)).collect();
    let gaps = SEPARATOR * natural.len().saturating_sub(1);
    let room = width.checked_sub(gaps)?;
    if natural.iter().sum::<usize>() <= room {
        return Some(natural);
    }
    let floor: usize = natural.iter().map(|w| (*w).min(MIN_COLUMN)).sum();
    if floor > room {
        return None;
    }
    // Water-filling: narrow columns keep their width, the others share what is left.
    let mut order: Vec<usize> = (0..natural.len()).collect();
    order.sort_by_key(|i| natural[*i]);
    let mut widths = natural.clone();
    let mut left = room;
    for (done, i) in order.iter().enumerate() {
        let share = left / (order.len() - done);
        widths[*i] = natural[*i].min(share.max(natural[*i].min(MIN_COLUMN)));
        left -= widths[*i];
    }
    // Columns cut to their share get what rounding left over, widest first.
    for i in order.iter().rev() {
        if left == 0 {
            break;
        }
        let more = (natural[*i] - widths[*i]).min(left);
        widths[*i] += more;
        left -= more;
    }
    Some(widths)
}

/// A table's cells: the header row and the body rows (each a list of cells).
#[derive(Debug, Clone, Default)]
pub struct Table {
    /// Alignment of each column.
    pub aligns: Vec<Align>,
    /// The header's cells.
    pub head: Vec<Line>,
    /// The body's rows.
    pub rows: Vec<Vec<Line>>,
}

impl Table {
    /// The table's lines in `width` columns.
    pub fn render(&self, width: usize) -> Vec<Line> {
        let columns = self
            .rows
            .iter()
            .map(Vec::len)
            .chain([self.head.len()])
            .max()
            .unwrap_or(0);
        let mut natural = vec![1; columns];
        for row in std::iter::once(&self.head).chain(&self.rows) {
            for (i, cell) in row.iter().enumerate() {
                natural[i] = natural[i].max(line_width(cell));
            }
        }
        let Some(widths) = column_widths(&natural, width) else {
            return self.records(width);
        };
        let bold = Look {
            bold: true,
            ..Look::PLAIN
        };
        let mut lines = self.row_lines(&self.head, &widths, Some(bold));
        let rule: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        lines.push(vec![Span::new(rule.join("─┼─"), Look::DIM)]);
        for row in &self.rows {
            lines.extend(self.row_lines(row, &widths, None));
        }
        lines
    }

    /// One row's lines: each cell wrapped in its column, padded, cells joined by ` │ `.
    fn row_lines(&self, row: &[Line], widths: &[usize], look: Option<Look>) -> Vec<Line> {
        let empty = Vec::new();
        let cells: Vec<Vec<Line>> = widths
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let mut cell = row.get(i).unwrap_or(&empty).clone();
                if let Some(look) = look {
                    for span in &mut cell {
                        span.look.bold |= look.bold;
                    }
                }
                wrap(&cell, *w)
            })
            .collect();
        let height = cells.iter().map(Vec::len).max().unwrap_or(1);
        (0..height)
            .map(|n| {
                let mut line = Vec::new();
                for (i, cell) in cells.iter().enumerate() {
                    if i > 0 {
                        line.push(Span::new(" │ ", Look::DIM));
                    }
                    let align = self.aligns.get(i).copied().unwrap_or(Align::Left);
                    let part = cell.get(n).cloned().unwrap_or_default();
                    line.extend(pad(part, widths[i], align));
                }
                // No trailing spaces.
                if let Some(last) = line.last_mut() {
                    let trimmed = last.text.trim_end().len();
                    last.text.truncate(trimmed);
                }
                line
            })
            .collect()
    }

    /// The fallback for a table too wide: every row as `header: value` lines, rows
    /// apart by a faint rule.
    fn records(&self, width: usize) -> Vec<Line> {
        let mut lines = Vec::new();
        for (n, row) in self.rows.iter().enumerate() {
            if n > 0 {
                lines.push(vec![Span::new("─".repeat(width.min(20)), Look::DIM)]);
            }
            for (i, cell) in row.iter().enumerate() {
                let mut spans: Line = self.head.get(i).cloned().unwrap_or_default();
                for span in &mut spans {
                    span.look.bold = true;
                }
                spans.push(Span::new(": ", Look::PLAIN));
                spans.extend(cell.iter().cloned());
                lines.extend(wrap(&spans, width));
            }
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::style::line_string;

    #[test]
    fn columns_keep_their_width_or_share_the_room() {
        type Case = (&'static [usize], usize, Option<&'static [usize]>);
        let cases: &[Case] = &[
            (&[5, 10], 40, Some(&[5, 10])),
            (&[5, 10], 18, Some(&[5, 10])),
            (&[5, 30], 20, Some(&[5, 12])),
            (&[20, 30], 23, Some(&[10, 10])),
            (&[2, 40, 40], 40, Some(&[2, 16, 16])),
            (&[20, 20, 20, 20, 20], 30, None),
            (&[0, 0], 10, Some(&[1, 1])),
            (&[10], 2, None),
        ];
        for (natural, width, expected) in cases {
            let widths = column_widths(natural, *width);
            assert_eq!(widths.as_deref(), *expected, "{natural:?} in {width}");
            if let Some(widths) = widths {
                let used: usize = widths.iter().sum::<usize>() + 3 * (widths.len() - 1);
                assert!(used <= *width, "{natural:?} in {width}: {widths:?}");
            }
        }
    }

    fn cells(texts: &[&str]) -> Vec<Line> {
        texts.iter().map(|t| vec![Span::plain(*t)]).collect()
    }

    fn plain(lines: &[Line]) -> Vec<String> {
        lines.iter().map(|l| line_string(l, false)).collect()
    }

    #[test]
    fn tables_align_wrap_and_fall_back_to_records() {
        let table = Table {
            aligns: vec![Align::Left, Align::Right],
            head: cells(&["Name", "Size"]),
            rows: vec![cells(&["alpha", "1"]), cells(&["b", "12345"])],
        };
        let cases: &[(usize, &[&str])] = &[
            (
                40,
                &[
                    "Name  │  Size",
                    "──────┼──────",
                    "alpha │     1",
                    "b     │ 12345",
                ],
            ),
            (
                10,
                &[
                    "Name:",
                    "alpha",
                    "Size: 1",
                    "──────────",
                    "Name: b",
                    "Size:",
                    "12345",
                ],
            ),
        ];
        for (width, expected) in cases {
            assert_eq!(plain(&table.render(*width)), *expected, "at {width}");
        }
        let wide = Table {
            aligns: vec![Align::Left, Align::Left],
            head: cells(&["Key", "Description"]),
            rows: vec![cells(&["k", "a long description of the key"])],
        };
        assert_eq!(
            plain(&wide.render(20)),
            [
                "Key │ Description",
                "────┼───────────────",
                "k   │ a long",
                "    │ description of",
                "    │ the key",
            ]
        );
    }
}
