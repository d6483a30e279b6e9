// The open conversation: switching to one, showing its stored state again, the list.
import { api } from "./api.js";
import { $ } from "./dom.js";
import { conversationPicked } from "./layout.js";
import { renderList } from "./list.js";
import { forgetCode, rendersByBlocks } from "./markdown.js";
import { showModel } from "./models.js";
import { renderPlan } from "./plan.js";
import { showError, state, updateControls } from "./session.js";
import { closeStream, listen, resetStream } from "./stream.js";
import { remember } from "./router.js";
import { keepsStreamed, markRow, renderTimeline } from "./timeline.js";
import { hideCost, showCost } from "./spending.js";
import { showUsage } from "./usage.js";
import { showConfirmation } from "./confirmation.js";
import { showElicitation } from "./elicitation.js";

// The conversation and turn whose end the timeline drawn last showed (read after the
// turn ended): the end's event then has nothing to add.
let shownEnd = { conversation: null, turn: null };

function drawnEnded(id, turnId) {
  return turnId !== undefined && shownEnd.conversation === id && shownEnd.turn === turnId;
}

// Whether the list shows conversation `id` titled `title` already (drawn after the
// title was stored): nothing to load again.
function listShows(id, title) {
  const link = document.querySelector(`#conversations li[data-id="${CSS.escape(id)}"] .row-link`);
  return link !== null && link.textContent === title;
}

/** Fills the conversation list; returns it (newest first). */
export async function loadConversations() {
  const list = await api("/api/conversations");
  renderList(list, {
    open: (id) => {
      conversationPicked();
      openConversation(id).catch((error) => showError(error.message));
    },
    removed: () => closeDeleted(list),
  });
  return list;
}

// The open conversation was deleted: the newest other one opens, or none.
async function closeDeleted(list) {
  const gone = state.conversation;
  const next = list.find((c) => c.id !== gone && document.querySelector(`#conversations li[data-id="${CSS.escape(c.id)}"]:not([hidden])`));
  if (next) return openConversation(next.id, { history: "replace" });
  startDraft("replace");
}

/**
 * Shows an empty new conversation at `/` (`history`: `push` or `replace` the address);
 * it is stored with its first message.
 */
export function startDraft(how = "push") {
  showError("");
  closeStream();
  resetStream();
  state.conversation = null;
  state.draft = true;
  state.busy = false;
  $("title").textContent = "New conversation";
  hideCost();
  forgetCode($("messages"));
  $("messages").replaceChildren();
  renderPlan(null, null);
  if (location.pathname !== "/" || location.hash) {
    if (how === "replace") history.replaceState(null, "", "/");
    else history.pushState(null, "", "/");
  }
  updateControls();
}

/**
 * Switches to conversation `id`: its timeline, and its event stream. `seq`: a row to
 * scroll to and mark; `history`: how the address bar follows (see `remember`); `fresh`:
 * its first turn was just started.
 */
export async function openConversation(id, { seq = null, history = "push", fresh = false } = {}) {
  const focusBefore = document.activeElement;
  showError("");
  closeStream();
  state.conversation = id;
  state.draft = false;
  remember(id, seq, history);
  showConfirmation({ type: "ConfirmationClosed" });
  showElicitation({ type: "ElicitationClosed" });
  const reload = () => openConversation(id, { history: "none" });
  const ended = (streamed, turnId) => (!streamed && drawnEnded(id, turnId) ? null : refresh({ streamed }));
  const handlers = { ended, reload, titled: (title) => (listShows(id, title) ? null : loadConversations()) };
  // A conversation just created with its first turn: the stream is open before the
  // timeline is read, so the turn's end is either stored or seen as an event.
  if (fresh) await listen(id, handlers);
  const timeline = await refresh({ live: fresh });
  if (!fresh) {
    await listen(id, handlers);
    // A turn that ended between the timeline and the stream's start sends no event
    // more: once the stream is open, a timeline read again says whether it ran on.
    if (timeline && timeline.busy && state.conversation === id) await refresh({ live: true });
  }
  // The message box, unless the person moved the focus elsewhere meanwhile.
  const moved = document.activeElement !== focusBefore && document.activeElement !== document.body;
  if ((seq === null || !markRow(seq)) && !moved) $("input").focus();
  return timeline;
}

/**
 * Shows the stored timeline again (after a turn ended, an edit, a compaction), keeping
 * the event stream, so nothing emitted meanwhile is missed; returns the timeline (none
 * when another conversation was opened meanwhile). `live`: a stream opened just before
 * replays a running turn, so its rows are left to it. `streamed`: the MarkdownStream of
 * the answer that just streamed in; the stored answer keeps its bubble when it shows
 * the same rendering (a long answer is not parsed and laid out a second time).
 */
export async function refresh({ live = false, streamed = null } = {}) {
  const id = state.conversation;
  if (!id) return null;
  const titles = state.titles;
  const html = streamed ? await streamed.finish() : null;
  // An answer that renders block by block as whole is kept as it streamed in: the
  // server need not render it again (for a long answer the costliest part of the read).
  const known = html !== null && rendersByBlocks(streamed.text);
  let timeline = await api(`/api/conversations/${id}${known ? "?last_html=false" : ""}`);
  const shown = html === null ? null : { bubble: streamed.bubble, html, text: known ? streamed.text : null };
  if (known && state.conversation === id && !keepsStreamed(timeline, shown)) {
    timeline = await api(`/api/conversations/${id}`); // not kept after all: drawn as stored
  }
  if (state.conversation !== id) return null;
  // `live`: the stream replays the running turn from its start; it draws it.
  const drawn = live && timeline.busy;
  if (!drawn) resetStream();
  // A title generated while the timeline was on its way came as an event: keep it.
  if (state.titles === titles) $("title").textContent = timeline.conversation.title;
  renderPlan(timeline.plan, timeline.plan_error);
  showUsage(timeline.context);
  showCost(id); // not awaited: the timeline is drawn meanwhile
  showModel(timeline.model);
  state.busy = timeline.busy;
  if (!drawn) renderTimeline(timeline, shown);
  const last = (timeline.turns || []).at(-1);
  shownEnd = { conversation: id, turn: !drawn && !timeline.busy && last ? last.id : null };
  await loadConversations(); // the open one marked in the list before the controls open
  updateControls();
  // A focused control that went away (Stop, once the turn ended) leaves the focus in
  // the message box rather than nowhere.
  if (!document.activeElement || document.activeElement === document.body) $("input").focus();
  return timeline;
}
