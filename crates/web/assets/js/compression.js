// Compression made visible: a card "Earlier turns summarized" that opens the summary
// the model now gets in their place, with the summarized rows folded under it.
import { element } from "./dom.js";

/**
 * The card for `conversation`'s summary, or null before any compression. Its `rows`
 * element is where the summarized rows go (folded until opened).
 */
export function summaryCard(conversation) {
  if (!conversation.compressed_context) return null;
  const card = element("section", "summary-card");
  card.setAttribute("aria-label", "Earlier turns summarized");
  const summary = element("details", "summary-text");
  summary.append(element("summary", "", "Earlier turns summarized"));
  // The summary is model text: shown as text, never as HTML.
  summary.append(element("div", "summary-body", conversation.compressed_context));
  const folded = element("details", "summarized-rows");
  const label = element("summary", "", "Show the summarized messages");
  const rows = element("div", "summarized-list");
  folded.append(label, rows);
  card.append(summary, folded);
  return { card, rows, label };
}

/** Says how many elements the folded list holds (after the timeline is drawn). */
export function countFolded(folded) {
  const n = folded.rows.children.length;
  folded.label.textContent = `Show the ${n} summarized ${n === 1 ? "item" : "items"}`;
}
