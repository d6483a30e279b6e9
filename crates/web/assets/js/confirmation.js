// A command waiting for the person's approval (the `confirm` events of the stream).
import { api } from "./api.js";
import { $ } from "./dom.js";
import { showError, state } from "./session.js";

const pending = { id: null }; // the request waiting for an answer

/** Shows the question of a `ConfirmationRequested`, or hides the dialog for anything else. */
export function showConfirmation(question) {
  const dialog = $("confirm-dialog");
  if (question.type !== "ConfirmationRequested") {
    dialog.hidden = true;
    pending.id = null;
    return;
  }
  pending.id = question.request_id;
  $("confirm-command").textContent = question.command;
  $("confirm-unconfined").hidden = !question.unconfined;
  dialog.hidden = false;
}

/** Sends the person's answer to the waiting command. */
export async function answerConfirmation(approve) {
  const requestId = pending.id;
  if (requestId === null) return;
  $("confirm-dialog").hidden = true;
  pending.id = null;
  try {
    await api(`/api/conversations/${state.conversation}/confirmation`, {
      method: "POST",
      body: { request_id: requestId, approve },
    });
  } catch (error) {
    showError(error.message);
  }
}
