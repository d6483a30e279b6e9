// The search box: full-text search over the person's history (`GET /api/search`).
import { api } from "./api.js";
import { $, element } from "./dom.js";
import { openConversation } from "./conversation.js";
import { showError } from "./session.js";

async function search(text) {
  const results = $("search-results");
  if (!text.trim()) {
    results.hidden = true;
    return;
  }
  try {
    const hits = await api(`/api/search?q=${encodeURIComponent(text)}`);
    results.replaceChildren();
    for (const hit of hits) {
      const li = element("li", "", `${hit.conversation_title}: ${hit.text.slice(0, 140)}`);
      li.addEventListener("click", () => openConversation(hit.conversation_id));
      results.append(li);
    }
    if (hits.length === 0) results.append(element("li", "", "No matches"));
    results.hidden = false;
  } catch (error) {
    showError(error.message);
  }
}

/** Searches as the person types (after a short pause). */
export function installSearch() {
  let pending = null;
  $("search").addEventListener("input", (event) => {
    clearTimeout(pending);
    pending = setTimeout(() => search(event.target.value), 250);
  });
}
