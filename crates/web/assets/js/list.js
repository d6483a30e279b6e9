// The conversation list: grouped by date (Today, Yesterday, Last 7 days, Older), each
// row a link to its address, renamed in place, deleted after a confirmation with a few
// seconds to undo (the DELETE is sent only when they are over).
import { api } from "./api.js";
import { $, button, element } from "./dom.js";
import { addressOf } from "./router.js";
import { showError, state } from "./session.js";

const UNDO_MS = 5000;
const DAY_MS = 24 * 60 * 60 * 1000;
const pending = new Map(); // id -> {timer, title} of deletions not sent yet
const undoNotice = { timer: 0 }; // hides the Undo notice

/** The group a conversation last changed at `when` falls in, seen at `now`. */
export function dateGroup(when, now) {
  const startOfToday = new Date(now.getFullYear(), now.getMonth(), now.getDate()).getTime();
  const time = when.getTime();
  if (time >= startOfToday) return "Today";
  if (time >= startOfToday - DAY_MS) return "Yesterday";
  if (time >= startOfToday - 6 * DAY_MS) return "Last 7 days";
  return "Older";
}

/**
 * Draws `list` (newest first); `open(id)` opens a row, `removed(id)` is told when the
 * open conversation was deleted.
 */
export function renderList(list, on) {
  const box = $("conversations");
  // Drawn again, the list keeps the keyboard where it was: on the same control of the
  // same row (a title arriving must not drop the focus of someone moving through it).
  const focused = box.contains(document.activeElement) ? document.activeElement : null;
  const focusedRow = focused?.closest("li")?.dataset.id;
  const focusedControl = ["row-link", "rename", "delete"].find((name) => focused?.classList.contains(name));
  box.replaceChildren();
  const now = new Date();
  let group = null;
  let ul = null;
  for (const c of list) {
    if (pending.has(c.id)) continue;
    const name = dateGroup(new Date(c.updated_at), now);
    if (name !== group) {
      group = name;
      const heading = element("h2", "group", name);
      ul = element("ul");
      ul.setAttribute("aria-label", name);
      box.append(heading, ul);
    }
    ul.append(row(c, on));
  }
  if (focusedRow && focusedControl) {
    box.querySelector(`li[data-id="${CSS.escape(focusedRow)}"] .${focusedControl}`)?.focus();
  }
}

function row(c, on) {
  const li = element("li", c.id === state.conversation ? "active" : "");
  li.dataset.id = c.id;
  const link = element("a", "row-link", c.title);
  link.href = addressOf(c.id);
  if (c.id === state.conversation) link.setAttribute("aria-current", "page");
  link.addEventListener("click", (event) => {
    event.preventDefault();
    on.open(c.id);
  });
  const rename = button("rename", "", () => startRename(li, c, on), `Rename “${c.title}”`);
  rename.innerHTML = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M4 20h4L19 9l-4-4L4 16v4zM14 6l4 4"/></svg>';
  const remove = button("delete", "", () => confirmDelete(c, on), `Delete “${c.title}”`);
  remove.innerHTML = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M5 7h14M10 7V4h4v3M7 7l1 13h8l1-13"/></svg>';
  // A click on the row's free space opens it too.
  li.addEventListener("click", (event) => {
    if (event.target === li) on.open(c.id);
  });
  li.append(link, rename, remove);
  return li;
}

// The title becomes a text box: Enter or leaving it saves, Escape cancels.
function startRename(li, c, on) {
  const input = element("input", "rename-input");
  input.value = c.title;
  input.setAttribute("aria-label", "New title");
  li.replaceChildren(input);
  input.focus();
  input.select();
  let done = false;
  const finish = async (save) => {
    if (done) return;
    done = true;
    const title = input.value.trim();
    if (save && title && title !== c.title) {
      try {
        await api(`/api/conversations/${c.id}`, { method: "PATCH", body: { title } });
        c.title = title;
        if (c.id === state.conversation) $("title").textContent = title;
      } catch (error) {
        showError(error.message);
      }
    }
    li.replaceWith(row(c, on));
    const again = document.querySelector(`#conversations li[data-id="${CSS.escape(c.id)}"] .rename`);
    if (again) again.focus();
  };
  input.addEventListener("keydown", (event) => {
    if (event.key === "Enter") finish(true);
    if (event.key === "Escape") {
      event.stopPropagation();
      finish(false);
    }
  });
  input.addEventListener("blur", () => finish(true));
}

// The confirmation: a modal <dialog>, which takes the focus and gives it back.
function confirmDelete(c, on) {
  const dialog = $("delete-dialog");
  $("delete-title").textContent = c.title;
  dialog.returnValue = "";
  dialog.onclose = () => {
    if (dialog.returnValue === "delete") scheduleDelete(c, on);
  };
  dialog.showModal();
}

// The row goes at once; the DELETE waits UNDO_MS, while a notice offers Undo.
function scheduleDelete(c, on) {
  const timer = setTimeout(() => sendDelete(c.id), UNDO_MS);
  pending.set(c.id, { timer, title: c.title });
  const li = document.querySelector(`#conversations li[data-id="${CSS.escape(c.id)}"]`);
  if (li) li.hidden = true;
  showUndo(c, on);
  if (c.id === state.conversation) on.removed(c.id);
}

function showUndo(c, on) {
  const notice = $("undo-notice");
  $("undo-text").textContent = `Deleted “${c.title}”.`;
  notice.hidden = false;
  $("undo-delete").onclick = () => {
    const entry = pending.get(c.id);
    if (!entry) return;
    clearTimeout(entry.timer);
    pending.delete(c.id);
    notice.hidden = true;
    const li = document.querySelector(`#conversations li[data-id="${CSS.escape(c.id)}"]`);
    if (li) li.hidden = false;
    on.open(c.id);
  };
  clearTimeout(undoNotice.timer);
  undoNotice.timer = setTimeout(() => (notice.hidden = true), UNDO_MS);
}

async function sendDelete(id, keepalive = false) {
  pending.delete(id);
  try {
    await api(`/api/conversations/${id}`, { method: "DELETE", keepalive });
  } catch (error) {
    showError(`The conversation could not be deleted: ${error.message}`);
  }
}

/** Sends the deletions still waiting when the page goes away. */
export function installList() {
  window.addEventListener("pagehide", () => {
    for (const [id, entry] of pending) {
      clearTimeout(entry.timer);
      sendDelete(id, true);
    }
  });
  $("delete-cancel").addEventListener("click", () => $("delete-dialog").close("cancel"));
  $("delete-confirm").addEventListener("click", () => $("delete-dialog").close("delete"));
}
