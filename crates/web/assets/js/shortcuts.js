// Keyboard shortcuts, listed in the help dialog (? or the keyboard button):
// Ctrl/⌘+Shift+O a new conversation, Ctrl/⌘+K or / the search box, Escape stops the
// running answer, ↑ in the empty message box edits the last message.
import { newConversation, stop } from "./actions.js";
import { $ } from "./dom.js";
import { closeOverlays } from "./layout.js";
import { state } from "./session.js";

function typing(target) {
  return target.closest("input, textarea, select, [contenteditable]") !== null;
}

function editLast() {
  const edits = document.querySelectorAll("#messages .message.user .edit");
  const last = edits[edits.length - 1];
  if (last && !last.disabled) last.click();
  return Boolean(last);
}

/** Connects the shortcuts and the help dialog. */
export function installShortcuts() {
  const help = $("help-dialog");
  $("help-open").addEventListener("click", () => help.showModal());
  $("help-close").addEventListener("click", () => help.close());
  document.addEventListener("keydown", (event) => {
    if (event.defaultPrevented || event.isComposing || document.querySelector("dialog[open]")) return;
    const command = event.ctrlKey || event.metaKey;
    const key = event.key.toLowerCase();
    if (command && event.shiftKey && key === "o") {
      event.preventDefault();
      newConversation();
    } else if ((command && key === "k") || (key === "/" && !command && !typing(event.target))) {
      event.preventDefault();
      closeOverlays();
      $("search").focus();
    } else if (key === "?" && !typing(event.target)) {
      event.preventDefault();
      help.showModal();
    } else if (key === "escape" && state.busy && !closeOverlays()) {
      event.preventDefault();
      stop();
    } else if (key === "arrowup" && event.target === $("input") && $("input").value === "" && editLast()) {
      event.preventDefault();
    }
  });
}
