// Earlier versions of a rewritten exchange (an edited message, a regenerated answer):
// ‹ n/N › under its user message browses them; the last is the exchange as it is now.
// An earlier answer is drawn as current answers are: the Markdown the server rendered
// and sanitized (`answer_html`), finished by enhance().
import { $, button, element } from "./dom.js";
import { enhance } from "./markdown.js";

// The version shown per user message (row id -> {total, at}): a timeline drawn again
// (a turn ended, another tab changed something) keeps the one being looked at, unless
// a version was added meanwhile.
const browsing = new Map();

/**
 * Adds the switcher after `bubble`, the current user message `row` (with `versions`);
 * browsing hides the current exchange (the elements of its turn) and shows the chosen
 * version's message and answer in its place.
 */
export function addVersions(bubble, row) {
  const versions = row.versions;
  if (!Array.isArray(versions) || versions.length === 0) return;
  const total = versions.length + 1;
  const before = browsing.get(row.id);
  let at = total; // 1-based; `total` is the current version
  const nav = element("div", "versions");
  nav.setAttribute("role", "group");
  nav.setAttribute("aria-label", "Versions of this message");
  const label = element("span", "versions-at");
  label.setAttribute("aria-live", "polite");
  const earlier = button("versions-prev", "‹", () => show(at - 1), "Earlier version");
  const later = button("versions-next", "›", () => show(at + 1), "Later version");
  nav.append(earlier, label, later);
  bubble.after(nav);
  const shown = { user: null, answer: null };

  function show(n) {
    at = Math.min(Math.max(n, 1), total);
    label.textContent = `${at}/${total}`;
    earlier.disabled = at === 1;
    later.disabled = at === total;
    if (at === total) browsing.delete(row.id);
    else browsing.set(row.id, { total, at });
    shown.user?.remove();
    shown.answer?.remove();
    const current = at === total;
    for (const node of $("messages").querySelectorAll(`[data-turn="${CSS.escape(String(row.turn_id))}"]`)) {
      node.hidden = !current;
    }
    if (current) return;
    const version = versions[at - 1];
    // Model and person text: as text, or as the server rendered and sanitized it.
    shown.user = element("div", "message user old-version", version.content);
    nav.before(shown.user);
    shown.answer = element("div", "message assistant rendered old-version");
    if (typeof version.answer_html === "string") {
      shown.answer.innerHTML = version.answer_html; // rendered and sanitized by the server
      enhance(shown.answer);
    } else shown.answer.textContent = "(no answer)";
    nav.after(shown.answer);
  }
  show(before && before.total === total ? before.at : total);
}
