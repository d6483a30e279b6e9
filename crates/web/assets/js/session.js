// What the page is doing: the open conversation, whether a turn runs, an outage; and
// the controls that follow from it.
import { $ } from "./dom.js";

/** The page's state; changed by the modules that act, read by `updateControls`. */
export const state = {
  conversation: null, // the selected conversation's id
  draft: false, // a new conversation is being written: stored with its first message
  busy: false, // a turn runs
  compressing: false,
  titles: 0, // TitleChanged events seen: a timeline fetched before one is stale on the title
  outage: false, // the database is away: nothing can be sent until it is back
  stopped: new Set(), // ids of turns stopped while this page watched
  admin: false, // the signed-in user sees everyone's usage
};

/** Enables and disables the controls for the current state. */
export function updateControls() {
  const open = state.conversation !== null || state.draft;
  const blocked = !open || state.busy || state.compressing;
  const acting = blocked || state.outage; // a draft can be typed during an outage
  $("input").disabled = blocked;
  $("attach").disabled = blocked;
  $("send").disabled = acting;
  $("compact").disabled = acting;
  $("compact-focus").disabled = blocked;
  $("undo").disabled = acting;
  for (const node of document.querySelectorAll("#messages .edit, #messages .regenerate, #messages .retry")) {
    node.disabled = acting;
  }
  $("tasks-toggle").disabled = !open;
  showExport(state.conversation);
  $("model").disabled = !open;
  $("stop").hidden = !state.busy;
  $("compressing").hidden = !state.compressing;
}

// The export links of conversation `id` (hidden when none is stored).
function showExport(id) {
  $("export").hidden = id === null;
  if (id === null) return;
  const base = `/api/conversations/${encodeURIComponent(id)}/export?format=`;
  $("export-md").href = `${base}md`;
  $("export-json").href = `${base}json`;
}

/** Shows `message` in the error line, or hides it when empty. */
export function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}
