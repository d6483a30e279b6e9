// An MCP server's question during a tool call (the `elicit` events of the stream): a
// form card built from its fields — text, number, whole number, yes/no, a choice —
// with their defaults and required marks, sent, declined or cancelled. The server's
// words are untrusted: they go in as text only.
import { api } from "./api.js";
import { $, element } from "./dom.js";
import { showError, state } from "./session.js";

const pending = { id: null, fields: [], returnTo: null }; // the form waiting, where the focus was

/** Shows the form of an `ElicitationRequested`, or closes the card for anything else. */
export function showElicitation(question) {
  const card = $("elicit-card");
  if (question.type !== "ElicitationRequested") {
    if (!card.hidden) close();
    return;
  }
  install();
  const wasOpen = !card.hidden;
  if (wasOpen && pending.id === question.request_id) return;
  pending.id = question.request_id;
  pending.fields = question.fields || [];
  $("elicit-title").textContent = `The MCP server ${question.server} asks:`;
  $("elicit-message").textContent = question.message;
  const inputs = $("elicit-fields");
  inputs.replaceChildren(...pending.fields.map(fieldRow));
  $("elicit-error").textContent = "";
  $("elicit-error").hidden = true;
  card.hidden = false;
  if (!wasOpen) pending.returnTo = document.activeElement;
  const first = inputs.querySelector("input, select") || $("elicit-submit");
  first.focus();
}

// One field: its label (title or name, a mark when required), its description, its input.
function fieldRow(field, index) {
  const row = element("div", "elicit-field");
  const id = `elicit-input-${index}`;
  const input = inputFor(field);
  input.id = id;
  input.name = field.name;
  const label = element("label", "", field.title || field.name);
  label.htmlFor = id;
  if (field.required) {
    input.required = true;
    label.append(element("span", "required-mark", " *"));
    label.title = "Required";
  }
  if (field.kind === "boolean") {
    row.classList.add("elicit-check");
    row.append(input, label);
  } else {
    row.append(label, input);
  }
  if (field.description) {
    const about = element("div", "elicit-about", field.description);
    about.id = `${id}-about`;
    input.setAttribute("aria-describedby", about.id);
    row.append(about);
  }
  return row;
}

// The input of `field`, holding its default.
function inputFor(field) {
  const given = field.default;
  if (field.kind === "boolean") {
    const box = element("input");
    box.type = "checkbox";
    box.checked = given === true;
    return box;
  }
  if (field.kind === "choice") {
    const select = element("select");
    if (!field.required || given === undefined || given === null) {
      select.append(new Option("—", ""));
    }
    for (const choice of field.choices || []) {
      select.append(new Option(choice.label, choice.value));
    }
    select.value = typeof given === "string" ? given : "";
    return select;
  }
  const input = element("input");
  if (field.kind === "number" || field.kind === "integer") {
    input.type = "number";
    input.step = field.kind === "integer" ? "1" : "any";
    if (field.minimum != null) input.min = String(field.minimum);
    if (field.maximum != null) input.max = String(field.maximum);
    input.inputMode = field.kind === "integer" ? "numeric" : "decimal";
  } else {
    input.type = "text";
    if (field.min_length != null) input.minLength = field.min_length;
    if (field.max_length != null) input.maxLength = field.max_length;
  }
  if (given !== undefined && given !== null) input.value = String(given);
  return input;
}

// The answer as the server checks it: each field by name; an empty one left out (its
// default, if any, stands in).
function content() {
  const answer = {};
  pending.fields.forEach((field, index) => {
    const input = $(`elicit-input-${index}`);
    if (!input) return;
    if (field.kind === "boolean") {
      answer[field.name] = input.checked;
      return;
    }
    const text = input.value.trim();
    if (text === "") return;
    if (field.kind === "number" || field.kind === "integer") {
      const number = Number(text);
      answer[field.name] = Number.isFinite(number) ? number : text;
    } else {
      answer[field.name] = input.value;
    }
  });
  return answer;
}

// Closes the card; the focus goes back where it was, or to Stop while the turn runs on.
function close() {
  $("elicit-card").hidden = true;
  pending.id = null;
  pending.fields = [];
  const back = pending.returnTo;
  pending.returnTo = null;
  if (back && back.isConnected && !back.disabled && back !== document.body) back.focus();
  else if (!$("stop").hidden) $("stop").focus();
  else $("input").focus();
}

// Sends `action` (`accept`, `decline`, `cancel`); an answer that does not fit the form
// is said next to it, which stays open.
async function reply(action) {
  const requestId = pending.id;
  if (requestId === null) return;
  const body = { request_id: requestId, action };
  if (action === "accept") body.content = content();
  try {
    await api(`/api/conversations/${state.conversation}/elicitation`, { method: "POST", body });
  } catch (error) {
    if (error.status === 400 && pending.id === requestId) {
      $("elicit-error").textContent = error.message;
      $("elicit-error").hidden = false;
      return;
    }
    if (pending.id === requestId) close();
    showError(error.message);
    return;
  }
  if (pending.id === requestId) close();
}

// Connects the card's buttons once: Submit (or Enter in a field), Decline, Cancel.
let installed = false;
function install() {
  if (installed) return;
  installed = true;
  $("elicit-form").addEventListener("submit", (event) => {
    event.preventDefault();
    reply("accept");
  });
  $("elicit-decline").addEventListener("click", () => reply("decline"));
  $("elicit-cancel").addEventListener("click", () => reply("cancel"));
}
