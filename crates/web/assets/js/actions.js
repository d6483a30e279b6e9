// What the person does to the open conversation: send, edit, regenerate, undo,
// compact, stop, pick a model, start a new conversation, restore files.
import { api } from "./api.js";
import { clearPending, createWithFiles, pendingFiles, sendingList, uploadPending } from "./attachments.js";
import { $, button, element, scrollDown } from "./dom.js";
import { loadConversations, openConversation, refresh, startDraft } from "./conversation.js";
import { showModel } from "./models.js";
import { showError, state, updateControls } from "./session.js";
import { announceEnded } from "./stream.js";
import { rowOf } from "./timeline.js";
import { rewindSummary, toggleDiff } from "./changes.js";

const at = (path) => `/api/conversations/${state.conversation}${path}`;

/** Sends the message box's text and the waiting files as a new turn. */
export async function send() {
  const input = $("input");
  const text = input.value;
  const files = pendingFiles();
  if ((!text.trim() && files.length === 0) || (!state.conversation && !state.draft)) return;
  if (state.outage) {
    // Enter during an outage sends nothing; the person is told why, not left guessing.
    showError(`Not sent: ${$("outage").title} Your message is still in the box.`);
    return;
  }
  showError("");
  const bubble = element("div", "message user", text);
  if (files.length > 0) bubble.append(sendingList(files));
  let created = null;
  try {
    state.busy = true;
    updateControls();
    $("messages").append(bubble);
    input.value = "";
    scrollDown();
    if (state.conversation) {
      const attachments = files.length > 0 ? await uploadPending(state.conversation) : undefined;
      await api(at("/messages"), { method: "POST", body: { text, attachments } });
    } else {
      // A new conversation is stored with its first message, never empty (with files:
      // created, given them and its message, or deleted again).
      const model = $("model").value || undefined;
      created =
        files.length > 0
          ? await createWithFiles(text, model)
          : await api("/api/conversations", { method: "POST", body: { message: text, model } });
      state.draft = false;
    }
    clearPending();
  } catch (error) {
    // Not stored: no bubble pretends it was; the draft is back in the box.
    bubble.remove();
    state.busy = false;
    updateControls();
    input.value = text;
    const unreachable = error.status === undefined; // fetch itself failed
    showError(
      unreachable
        ? `Not sent: the server could not be reached (${error.message}). Your message is still in the box; send it again when the server is back.`
        : error.message,
    );
    return;
  }
  if (created) await openCreated(created);
}

// Opens the conversation just created with its first turn (stored: a failure now is
// only shown); says it ended if it did before its event stream opened.
async function openCreated(created) {
  try {
    const timeline = await openConversation(created.id, { fresh: true });
    const first = timeline && !timeline.busy && timeline.turns.find((t) => t.id === created.turn_id);
    if (first) announceEnded(first.status, first.error);
  } catch (error) {
    showError(error.message);
  }
}

// Runs `request` as the action that starts a turn: the controls blocked meanwhile,
// the stored timeline shown after it, a failure shown.
async function startingTurn(request) {
  try {
    state.busy = true;
    updateControls();
    await request();
    await refresh();
  } catch (error) {
    state.busy = false;
    updateControls();
    showError(error.message);
  }
}

// Turns a user message into an editor; saving replaces the message and everything
// after it with a new turn.
function startEditing(bubble) {
  const row = rowOf(bubble);
  bubble.replaceChildren();
  const text = element("textarea", "edit-text");
  text.value = row.content;
  text.setAttribute("aria-label", "Edited message");
  const save = button("save-edit", "Save and regenerate", () => {
    if (!text.value.trim()) return;
    startingTurn(() => api(at(`/messages/${row.id}/edit`), { method: "POST", body: { text: text.value } }));
  });
  const cancel = button("cancel-edit", "Cancel", () => refresh());
  bubble.append(text, save, cancel);
  text.focus();
}

function regenerate(turnId) {
  startingTurn(() => api(at(`/turns/${turnId}/regenerate`), { method: "POST" }));
}

// Asks whether an undo restores the files too; resolves to "files", "turn" or null.
function askUndo() {
  const dialog = $("undo-dialog");
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.onclose = () => resolve(dialog.returnValue || null);
    dialog.showModal();
  });
}

// Takes the last turn out of the context; the timeline shows it struck through. When
// that turn's tool calls changed files, asks first whether they go back too (then it
// is a rewind of both, the same as the card's restore with "take the turns out").
async function undo() {
  try {
    const timeline = await api(at(""));
    const last = (timeline.turns || []).filter((t) => !t.undone).at(-1);
    const changed = last && (timeline.file_changes || []).some((c) => c.turn_id === last.id && !c.rewind);
    const choice = changed ? await askUndo() : "turn";
    if (choice === null) return;
    if (choice === "files") {
      const done = await api(at("/rewind"), { method: "POST", body: { to_turn: last.id, scope: "both" } });
      await refresh();
      sayInCard(`.file-changes[data-turn-id="${CSS.escape(last.id)}"]`, rewindSummary(done));
      return;
    }
    const undone = await api(at("/undo"), { method: "POST" });
    await refresh();
    if (undone.turn_id === null) showError("Nothing to undo: no turn after the last summary is left in the context.");
  } catch (error) {
    showError(error.message);
  }
}

// Asks in the restore dialog; resolves to {force, both}, or null when cancelled.
function askRestore() {
  const dialog = $("restore-dialog");
  $("restore-force").checked = false;
  $("restore-both").checked = false;
  dialog.returnValue = "";
  return new Promise((resolve) => {
    dialog.onclose = () =>
      resolve(dialog.returnValue === "restore" ? { force: $("restore-force").checked, both: $("restore-both").checked } : null);
    dialog.showModal();
  });
}

// Says `text` in the status line of the card `selector` finds once the timeline is
// drawn again.
function sayInCard(selector, text) {
  const status = document.querySelector(`${selector} .file-changes-status`);
  if (status) status.textContent = text;
  else showError(text);
}

// Brings the files turn `turnId` and later ones changed back to before it (asked first).
async function restoreFiles(turnId) {
  const choice = await askRestore();
  if (!choice) return;
  const body = { to_turn: turnId, scope: choice.both ? "both" : "files", force: choice.force };
  try {
    const done = await api(at("/rewind"), { method: "POST", body });
    await refresh();
    sayInCard(`.file-changes[data-turn-id="${CSS.escape(turnId)}"]`, rewindSummary(done));
  } catch (error) {
    showError(error.message);
  }
}

// Undoes the newest restore: what it replaced comes back.
async function undoRestore() {
  try {
    const done = await api(at("/rewind"), { method: "POST", body: { undo: true } });
    await refresh();
    sayInCard(".file-changes.restored", `Undone. ${rewindSummary(done)}`);
  } catch (error) {
    showError(error.message);
  }
}

async function compact() {
  const focus = $("compact-focus").value;
  try {
    const report = await api(at("/compact"), { method: "POST", body: { focus } });
    $("compact-focus").value = "";
    await refresh();
    if (!report.ok) showError(`Nothing was summarized: ${report.detail}`);
  } catch (error) {
    state.compressing = false;
    updateControls();
    showError(error.message);
  }
}

/** Stores the picked model for the open conversation; its next turn runs on it. */
async function chooseModel() {
  if (!state.conversation) return;
  try {
    const chosen = await api(at("/model"), { method: "PUT", body: { model: $("model").value } });
    showModel(chosen.model);
    await refresh(); // the context bar follows the model's window
  } catch (error) {
    showError(error.message);
  }
}

/**
 * Starts a new conversation: an empty page at `/`; nothing is stored until its first
 * message is sent (see `send`).
 */
export async function newConversation() {
  startDraft();
  // The message box has the focus at once, not after the list is loaded again: by
  // then the person may be typing elsewhere (in the search box, say).
  $("input").focus();
  await loadConversations().catch((error) => showError(error.message));
}

/** Stops the running turn. */
export function stop() {
  api(at("/cancel"), { method: "POST" }).catch((e) => showError(e.message));
}

/** Connects the controls of the conversation to these actions. */
export function installActions() {
  $("composer").addEventListener("submit", (event) => {
    event.preventDefault();
    send();
  });
  $("input").addEventListener("keydown", (event) => {
    if (event.key === "Enter" && !event.shiftKey && !event.isComposing) {
      event.preventDefault();
      send();
    }
  });
  $("stop").addEventListener("click", stop);
  $("new-conversation").addEventListener("click", newConversation);
  $("compact").addEventListener("click", compact);
  $("undo").addEventListener("click", undo);
  $("model").addEventListener("change", chooseModel);
  $("messages").addEventListener("click", (event) => {
    const target = event.target.closest("button[data-action]");
    if (!target) return;
    if (target.dataset.action === "edit") startEditing(target.closest(".message"));
    if (target.dataset.action === "regenerate" || target.dataset.action === "retry") {
      regenerate(target.dataset.turnId);
    }
    if (target.dataset.action === "restore-files") restoreFiles(target.dataset.turnId);
    if (target.dataset.action === "undo-restore") undoRestore();
    if (target.dataset.action === "file-diff") toggleDiff(target);
  });
  $("undo-cancel").addEventListener("click", () => $("undo-dialog").close(""));
  $("undo-turn-only").addEventListener("click", () => $("undo-dialog").close("turn"));
  $("undo-with-files").addEventListener("click", () => $("undo-dialog").close("files"));
  $("restore-cancel").addEventListener("click", () => $("restore-dialog").close(""));
  $("restore-confirm").addEventListener("click", () => $("restore-dialog").close("restore"));
}
