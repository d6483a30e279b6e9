// The open conversation: switching to one, showing its stored state again, the list.
import { api } from "./api.js";
import { $, element } from "./dom.js";
import { conversationPicked } from "./layout.js";
import { showModel } from "./models.js";
import { renderPlan } from "./plan.js";
import { showError, state, updateControls } from "./session.js";
import { closeStream, listen, resetStream } from "./stream.js";
import { remember } from "./router.js";
import { markRow, renderTimeline } from "./timeline.js";
import { showUsage } from "./usage.js";
import { showConfirmation } from "./confirmation.js";

/** Fills the conversation list; returns it (newest first). */
export async function loadConversations() {
  const list = await api("/api/conversations");
  const ul = $("conversations");
  ul.replaceChildren();
  for (const c of list) {
    const li = element("li", c.id === state.conversation ? "active" : "", c.title);
    li.dataset.id = c.id;
    li.addEventListener("click", () => {
      conversationPicked();
      openConversation(c.id);
    });
    ul.append(li);
  }
  return list;
}

/**
 * Switches to conversation `id`: its timeline, and its event stream. `seq`: a row to
 * scroll to and mark; `history`: how the address bar follows (see `remember`).
 */
export async function openConversation(id, { seq = null, history = "push" } = {}) {
  showError("");
  closeStream();
  state.conversation = id;
  remember(id, seq, history);
  showConfirmation({ type: "ConfirmationClosed" });
  await refresh();
  const reload = () => openConversation(id, { history: "none" });
  listen(id, { ended: refresh, reload, titled: loadConversations });
  if (seq === null || !markRow(seq)) $("input").focus();
}

/**
 * Shows the stored timeline again (after a turn ended, an edit, a compaction), keeping
 * the event stream, so nothing emitted meanwhile is missed.
 */
export async function refresh() {
  const id = state.conversation;
  if (!id) return;
  const titles = state.titles;
  const timeline = await api(`/api/conversations/${id}`);
  if (state.conversation !== id) return;
  resetStream();
  // A title generated while the timeline was on its way came as an event: keep it.
  if (state.titles === titles) $("title").textContent = timeline.conversation.title;
  renderPlan(timeline.plan, timeline.plan_error);
  showUsage(timeline.context);
  showModel(timeline.model);
  state.busy = timeline.busy;
  renderTimeline(timeline);
  updateControls();
  await loadConversations();
}
