// A tool call waiting for the person's approval (the `confirm` events of the stream):
// the call (a command as itself, another tool's by name and arguments), the rule that
// asked, and the answers once, in this conversation, always, or deny.
import { api } from "./api.js";
import { $ } from "./dom.js";
import { showError, state } from "./session.js";

const pending = { id: null, returnTo: null }; // the request waiting, where the focus was

/** Shows the question of a `ConfirmationRequested`, or hides the dialog for anything else. */
export function showConfirmation(question) {
  const dialog = $("confirm-dialog");
  if (question.type !== "ConfirmationRequested") {
    dialog.hidden = true;
    pending.id = null;
    return;
  }
  const wasOpen = !dialog.hidden;
  pending.id = question.request_id;
  const isCommand = question.is_command !== false;
  $("confirm-question").textContent = isCommand
    ? "The assistant wants to run a command:"
    : `The assistant wants to call ${question.tool}:`;
  $("confirm-command").textContent = question.command;
  $("confirm-rule").hidden = !question.rule;
  $("confirm-rule-text").textContent = question.rule || "";
  $("confirm-unconfined").hidden = !question.unconfined;
  dialog.hidden = false;
  // The question takes the focus (on Deny: Enter never runs a command by accident).
  if (!wasOpen) pending.returnTo = document.activeElement;
  $("confirm-deny").focus();
}

// The focus goes back where it was, or to Stop while the turn runs on.
function returnFocus() {
  const back = pending.returnTo;
  pending.returnTo = null;
  if (back && back.isConnected && !back.disabled && back !== document.body) back.focus();
  else if (!$("stop").hidden) $("stop").focus();
  else $("input").focus();
}

/** Sends the person's answer to the waiting call; `scope` says how far an approval
 * reaches (`once`, `conversation` or `always`). */
export async function answerConfirmation(approve, scope = "once") {
  const requestId = pending.id;
  if (requestId === null) return;
  $("confirm-dialog").hidden = true;
  pending.id = null;
  returnFocus();
  try {
    await api(`/api/conversations/${state.conversation}/confirmation`, {
      method: "POST",
      body: { request_id: requestId, approve, scope },
    });
  } catch (error) {
    showError(error.message);
  }
}
