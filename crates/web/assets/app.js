// SmallEBot's page: the conversation list, the timeline, the live event stream.
// Everything the model or a tool wrote is inserted as text (textContent); the only
// HTML inserted is the answer's Markdown, rendered and sanitized by the server.
"use strict";

const $ = (id) => document.getElementById(id);
const RESULT_PREVIEW_CHARS = 600;

const state = {
  conversation: null, // the selected conversation's id
  events: null, // its EventSource
  busy: false, // a turn runs
  compressing: false,
  streaming: null, // the assistant bubble receiving text deltas
  reasoning: null, // the reasoning block receiving deltas
  cards: new Map(), // call id -> tool card of the running turn
  confirmation: null, // the id of the command waiting for approval
  titles: 0, // TitleChanged events seen: a timeline fetched before one is stale on the title
  outage: false, // the database is away: nothing can be sent until the page is loaded again
};

async function api(path, options = {}) {
  const init = { method: options.method || "GET", headers: {} };
  if (options.body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const response = await fetch(path, init);
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new Error((body && body.error) || `${response.status} ${response.statusText}`);
    error.status = response.status;
    if (response.status === 503) outage(error.message);
    throw error;
  }
  return body;
}

// ---- a database outage ------------------------------------------------------------

const READY_POLL_MS = 2000;
const outageState = { poll: null, checking: false };

// The server cannot reach its database (a 503): a banner says so, the actions are off
// (typing is not), and /readyz is polled until the database answers again; then
// everything is loaded again and the event stream opened anew, and only then do the
// banner go and the actions come back. What failed (`message`) is in the error line of
// the action that failed, so the banner stays short; it carries it as its tooltip too.
function outage(message) {
  const banner = $("outage");
  banner.textContent = `The server cannot reach its database. Nothing you do is saved until it is back; retrying every ${READY_POLL_MS / 1000} s, and this page recovers by itself.`;
  banner.title = message;
  banner.hidden = false;
  state.outage = true;
  updateControls();
  if (outageState.poll === null) outageState.poll = setInterval(checkReady, READY_POLL_MS);
}

async function checkReady() {
  if (outageState.checking) return;
  outageState.checking = true;
  let ready = false;
  try {
    ready = (await fetch("/readyz")).ok;
  } catch (_) {
    ready = false; // the server itself is away: keep polling
  } finally {
    outageState.checking = false;
  }
  if (!ready || outageState.poll === null) return;
  clearInterval(outageState.poll);
  outageState.poll = null;
  showError("");
  try {
    if (state.conversation) await openConversation(state.conversation);
    else await boot();
  } catch (error) {
    showError(error.message);
  }
  if (outageState.poll !== null) return; // a 503 again while loading: still away
  state.outage = false;
  $("outage").hidden = true;
  updateControls();
}

function showError(message) {
  const box = $("error");
  box.textContent = message || "";
  box.hidden = !message;
}

function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

function scrollDown() {
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
}

// ---- state of the controls ------------------------------------------------------

function updateControls() {
  const open = state.conversation !== null;
  const blocked = !open || state.busy || state.compressing;
  const acting = blocked || state.outage; // a draft can be typed during an outage
  $("input").disabled = blocked;
  $("send").disabled = acting;
  $("compact").disabled = acting;
  $("compact-focus").disabled = blocked;
  $("undo").disabled = acting;
  for (const button of document.querySelectorAll("#messages .edit, #messages .regenerate")) {
    button.disabled = acting;
  }
  $("tasks-toggle").disabled = !open;
  $("model").disabled = !open;
  $("stop").hidden = !state.busy;
  $("compressing").hidden = !state.compressing;
}

// ---- the conversation list ------------------------------------------------------

async function loadConversations() {
  const list = await api("/api/conversations");
  const ul = $("conversations");
  ul.replaceChildren();
  for (const c of list) {
    const li = element("li", c.id === state.conversation ? "active" : "", c.title);
    li.dataset.id = c.id;
    li.addEventListener("click", () => openConversation(c.id));
    ul.append(li);
  }
  return list;
}

// ---- the timeline ---------------------------------------------------------------

function toolCard(call) {
  const card = element("div", `tool ${call.status || "running"}`);
  card.dataset.callId = call.call_id;
  const head = element("div");
  head.append(element("span", "name", call.tool_name), document.createTextNode(" "));
  head.append(element("span", "status", call.status || "running"));
  card.append(head, element("pre", "arguments", call.arguments));
  const result = element("pre", "result");
  card.append(result);
  setResult(card, call.result);
  return card;
}

function setResult(card, result) {
  const box = card.querySelector(".result");
  const old = card.querySelector(".show-all");
  if (old) old.remove();
  if (result === null || result === undefined) {
    box.textContent = "";
    return;
  }
  if (result.length <= RESULT_PREVIEW_CHARS) {
    box.textContent = result;
    return;
  }
  box.textContent = result.slice(0, RESULT_PREVIEW_CHARS) + "…";
  const all = element("button", "show-all", "show all");
  all.type = "button";
  all.addEventListener("click", () => {
    box.textContent = result;
    all.remove();
  });
  card.append(all);
}

function messageBubble(row) {
  const bubble = element("div", `message ${row.role}`);
  bubble.dataset.id = row.id;
  if (row.summarized) bubble.classList.add("summarized");
  if (row.undone) {
    bubble.classList.add("undone");
    bubble.title = "undone: kept in the history, no longer sent to the model";
  }
  if (row.role === "assistant" && typeof row.html === "string") {
    bubble.classList.add("rendered");
    bubble.innerHTML = row.html; // rendered and sanitized by the server
  } else {
    bubble.textContent = row.content;
  }
  if (row.role === "user" && !row.replaced_by) {
    const edit = element("button", "edit", "edit");
    edit.type = "button";
    edit.addEventListener("click", () => startEditing(bubble, row));
    bubble.prepend(edit);
  }
  return bubble;
}

function renderTimeline(timeline) {
  const box = $("messages");
  box.replaceChildren();
  let lastAnswer = null;
  for (const row of timeline.rows) {
    if (row.kind === "message") {
      if (row.replaced_by) continue; // shown as its replacement
      if (row.role === "assistant" && row.content === "") continue; // opens a tool step
      const bubble = messageBubble(row);
      if (row.role === "assistant") lastAnswer = { bubble, row };
      box.append(bubble);
    } else if (row.kind === "tool_call") {
      box.append(toolCard(row));
    } else if (row.kind === "think_block") {
      const details = element("details", "reasoning");
      details.append(element("summary", "", "Reasoning"), element("div", "", row.content));
      box.append(details);
    }
  }
  if (lastAnswer && !lastAnswer.row.summarized) {
    const again = element("button", "regenerate", "regenerate");
    again.type = "button";
    again.addEventListener("click", () => regenerate(lastAnswer.row.turn_id));
    lastAnswer.bubble.prepend(again);
  }
  scrollDown();
}

// Switches to conversation `id`: its timeline, and its event stream.
async function openConversation(id) {
  showError("");
  if (state.events) state.events.close();
  state.events = null;
  state.conversation = id;
  showConfirmation({ type: "ConfirmationClosed" });
  await refresh();
  listen(id);
  $("input").focus();
}

// Shows the stored timeline again (after a turn ended, an edit, a compaction), keeping
// the event stream, so nothing emitted meanwhile is missed.
async function refresh() {
  const id = state.conversation;
  if (!id) return;
  const titles = state.titles;
  const timeline = await api(`/api/conversations/${id}`);
  if (state.conversation !== id) return;
  state.cards.clear();
  state.streaming = null;
  state.reasoning = null;
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

// How full the context window is: `{ratio, window, exact}` (`exact: false`: an
// upper bound, counted before the server's tokenizer was ready).
function showUsage(usage) {
  const percent = Math.min(100, Math.round(usage.ratio * 100));
  const bound = usage.exact === false ? "≤ " : "";
  $("usage-bar").style.width = `${percent}%`;
  $("usage-text").textContent = `${bound}${percent}% of ${usage.window}`;
}

// ---- the live events ------------------------------------------------------------

function listen(id) {
  const source = new EventSource(`/api/conversations/${id}/events`);
  state.events = source;
  source.onmessage = (message) => {
    if (state.conversation !== id) return;
    onEvent(JSON.parse(message.data));
  };
  source.addEventListener("confirm", (message) => {
    if (state.conversation !== id) return;
    showConfirmation(JSON.parse(message.data));
  });
  source.addEventListener("reload", () => {
    // The stream could not be continued: load the stored state, start a new one.
    source.close();
    if (state.conversation === id) openConversation(id);
  });
}

function streamingBubble() {
  if (!state.streaming) {
    state.streaming = element("div", "message assistant streaming");
    $("messages").append(state.streaming);
  }
  return state.streaming;
}

function onEvent(event) {
  switch (event.type) {
    case "TurnStarted":
      state.busy = true;
      break;
    case "TextDelta":
      streamingBubble().textContent += event.text;
      break;
    case "ReasoningDelta":
      if (!state.reasoning) {
        const details = element("details", "reasoning");
        details.append(element("summary", "", "Reasoning"), element("div"));
        $("messages").append(details);
        state.reasoning = details.lastChild;
      }
      state.reasoning.textContent += event.text;
      break;
    case "Retrying":
      if (state.streaming) state.streaming.textContent = "";
      if (state.reasoning) state.reasoning.textContent = "";
      showError(`The model connection failed (${event.reason}); retrying (${event.attempt}/${event.max})…`);
      break;
    case "ToolCallStarted": {
      state.streaming = null; // the next step's text gets its own bubble
      state.reasoning = null;
      const card = toolCard({ call_id: event.call_id, tool_name: event.tool_name, arguments: event.arguments });
      state.cards.set(event.call_id, card);
      $("messages").append(card);
      break;
    }
    case "ToolCallCompleted": {
      const card = state.cards.get(event.call_id);
      if (card) {
        card.className = `tool ${event.status}`;
        card.querySelector(".status").textContent = event.status;
        setResult(card, event.result);
      }
      break;
    }
    case "ContextUsage":
      showUsage(event);
      break;
    case "CompressionStarted":
      state.compressing = true;
      break;
    case "CompressionCompleted":
      state.compressing = false;
      if (!event.ok) showError(`Compression did not summarize anything: ${event.detail}`);
      break;
    case "TaskListChanged":
      renderPlan(event.plan);
      break;
    case "TitleChanged":
      state.titles += 1;
      $("title").textContent = event.title;
      loadConversations();
      break;
    case "Warning":
      showError(`Warning: ${event.message}`);
      break;
    case "TurnFailed":
      showError(`The turn failed: ${event.error}`);
    // falls through
    case "TurnCompleted":
    case "TurnCancelled":
      state.busy = false;
      updateControls();
      refresh(); // the stored timeline, with the answer rendered as Markdown
      return;
    default:
      break;
  }
  updateControls();
  scrollDown();
}

// A command waiting for the person's approval, or none.
function showConfirmation(question) {
  const dialog = $("confirm-dialog");
  if (question.type !== "ConfirmationRequested") {
    dialog.hidden = true;
    state.confirmation = null;
    return;
  }
  state.confirmation = question.request_id;
  $("confirm-command").textContent = question.command;
  $("confirm-unconfined").hidden = !question.unconfined;
  dialog.hidden = false;
}

async function answerConfirmation(approve) {
  const requestId = state.confirmation;
  if (requestId === null) return;
  $("confirm-dialog").hidden = true;
  state.confirmation = null;
  try {
    await api(`/api/conversations/${state.conversation}/confirmation`, {
      method: "POST",
      body: { request_id: requestId, approve },
    });
  } catch (error) {
    showError(error.message);
  }
}

// ---- actions ----------------------------------------------------------------------

async function send() {
  const input = $("input");
  const text = input.value;
  if (!text.trim() || !state.conversation || state.outage) return;
  showError("");
  const bubble = element("div", "message user", text);
  try {
    state.busy = true;
    updateControls();
    $("messages").append(bubble);
    input.value = "";
    scrollDown();
    await api(`/api/conversations/${state.conversation}/messages`, { method: "POST", body: { text } });
  } catch (error) {
    // Not stored: no bubble pretends it was; the draft is back in the box.
    bubble.remove();
    state.busy = false;
    updateControls();
    input.value = text;
    showError(error.message);
  }
}

// Turns a user message into an editor; saving replaces the message and everything
// after it with a new turn.
function startEditing(bubble, row) {
  bubble.replaceChildren();
  const text = element("textarea", "edit-text");
  text.value = row.content;
  const save = element("button", "save-edit", "Save and regenerate");
  save.type = "button";
  const cancel = element("button", "cancel-edit", "Cancel");
  cancel.type = "button";
  bubble.append(text, save, cancel);
  text.focus();
  cancel.addEventListener("click", () => refresh());
  save.addEventListener("click", async () => {
    if (!text.value.trim()) return;
    try {
      state.busy = true;
      updateControls();
      await api(`/api/conversations/${state.conversation}/messages/${row.id}/edit`, {
        method: "POST",
        body: { text: text.value },
      });
      await refresh();
    } catch (error) {
      state.busy = false;
      updateControls();
      showError(error.message);
    }
  });
}

async function regenerate(turnId) {
  try {
    state.busy = true;
    updateControls();
    await api(`/api/conversations/${state.conversation}/turns/${turnId}/regenerate`, { method: "POST" });
    await refresh();
  } catch (error) {
    state.busy = false;
    updateControls();
    showError(error.message);
  }
}

// Takes the last turn out of the context; the timeline shows it struck through.
async function undo() {
  try {
    const undone = await api(`/api/conversations/${state.conversation}/undo`, { method: "POST" });
    await refresh();
    if (undone.turn_id === null) showError("Nothing to undo: no turn after the last summary is left in the context.");
  } catch (error) {
    showError(error.message);
  }
}

async function compact() {
  const focus = $("compact-focus").value;
  try {
    const report = await api(`/api/conversations/${state.conversation}/compact`, { method: "POST", body: { focus } });
    $("compact-focus").value = "";
    await refresh();
    if (!report.ok) showError(`Nothing was summarized: ${report.detail}`);
  } catch (error) {
    state.compressing = false;
    updateControls();
    showError(error.message);
  }
}

async function newConversation() {
  try {
    const created = await api("/api/conversations", { method: "POST" });
    await openConversation(created.id);
  } catch (error) {
    showError(error.message);
  }
}

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

function start() {
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
  $("stop").addEventListener("click", () => {
    api(`/api/conversations/${state.conversation}/cancel`, { method: "POST" }).catch((e) => showError(e.message));
  });
  $("new-conversation").addEventListener("click", newConversation);
  $("confirm-approve").addEventListener("click", () => answerConfirmation(true));
  $("confirm-deny").addEventListener("click", () => answerConfirmation(false));
  $("compact").addEventListener("click", compact);
  $("undo").addEventListener("click", undo);
  $("model").addEventListener("change", chooseModel);
  $("tasks-toggle").addEventListener("click", () => {
    $("tasks").hidden = !$("tasks").hidden;
  });
  let pending = null;
  $("search").addEventListener("input", (event) => {
    clearTimeout(pending);
    pending = setTimeout(() => search(event.target.value), 250);
  });
  $("login").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api("/api/login", { method: "POST", body: { token: $("token").value } });
      $("token").value = "";
      $("login").hidden = true;
      for (const part of ["sidebar", "chat"]) $(part).hidden = false;
      boot();
    } catch (error) {
      $("login-error").textContent = error.message;
    }
  });
  boot();
}

// Loads the conversations (or asks to sign in when the server has users); settles when
// done, failures shown.
function boot() {
  return loadModels()
    .then(loadConversations)
    .then((list) => (list.length > 0 ? openConversation(list[0].id) : newConversation()))
    .catch((error) => {
      if (error.status === 401) {
        for (const part of ["sidebar", "chat", "tasks"]) $(part).hidden = true;
        $("login").hidden = false;
        $("token").focus();
      } else {
        showError(error.message);
      }
    });
}

start();
