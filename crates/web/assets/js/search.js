// The search box: full-text search over the person's history (`GET /api/search`).
import { api } from "./api.js";
import { $, element } from "./dom.js";
import { openConversation } from "./conversation.js";
import { conversationPicked } from "./layout.js";
import { addressOf } from "./router.js";
import { showError } from "./session.js";

// The text around the match, its words in <mark>: every part goes in as text.
function snippet(parts) {
  const box = element("span", "hit-snippet");
  for (const part of parts) {
    box.append(part.marked ? element("mark", "", part.text) : document.createTextNode(part.text));
  }
  return box;
}

// `current()` says whether this is still the latest search: answers can arrive out of
// order, and a stale one is dropped so that the list always shows what the box says.
async function search(text, current) {
  const results = $("search-results");
  if (!text.trim()) {
    results.hidden = true;
    return;
  }
  try {
    const hits = await api(`/api/search?q=${encodeURIComponent(text)}`);
    if (!current()) return;
    results.replaceChildren();
    for (const hit of hits) {
      const li = element("li");
      const link = element("a", "hit");
      link.append(element("span", "hit-title", hit.conversation_title), snippet(hit.snippet));
      link.href = addressOf(hit.conversation_id, hit.seq);
      link.addEventListener("click", (event) => {
        event.preventDefault();
        conversationPicked();
        openConversation(hit.conversation_id, { seq: hit.seq });
      });
      li.append(link);
      results.append(li);
    }
    if (hits.length === 0) results.append(element("li", "", "No matches"));
    results.hidden = false;
  } catch (error) {
    if (current()) showError(error.message);
  }
}

/** Searches as the person types (after a short pause). */
export function installSearch() {
  let pending = null;
  let asked = 0;
  $("search").addEventListener("input", (event) => {
    clearTimeout(pending);
    const number = ++asked;
    pending = setTimeout(() => search(event.target.value, () => number === asked), 250);
  });
}
