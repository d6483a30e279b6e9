// The open conversation's live events (server-sent events, docs/protocol.md): the
// streamed answer, tool cards, the plan, the title, compression.
import { showConfirmation } from "./confirmation.js";
import { showElicitation } from "./elicitation.js";
import { streamClosed, streamLost, streamOpen } from "./connection.js";
import { $, element, scrollDown } from "./dom.js";
import { MarkdownStream } from "./markdown.js";
import { renderPlan } from "./plan.js";
import { showError, state, updateControls } from "./session.js";
import { failureText, reasoningBlock } from "./timeline.js";
import { subAgentEvent } from "./subagents.js";
import { completeCard, hookWarning, showHooks, toolCard } from "./toolcards.js";
import { showUsage } from "./usage.js";

const live = {
  source: null, // the EventSource
  streaming: null, // the MarkdownStream of the answer receiving text deltas
  reasoning: null, // the reasoning block receiving deltas: {box, pieces, frame}
  cards: new Map(), // call id -> tool card of the running turn
  scrollFrame: 0, // the animation frame that follows the timeline's end, if one is due
};

// The model call failed and is tried again: a line with the attempt, the reason and a
// countdown to the next attempt, until text or a tool call comes (or the turn ends).
const retry = { line: null, timer: 0 };

function showRetry(event) {
  endRetry();
  const line = element("div", "retrying");
  line.setAttribute("role", "status");
  const due = Date.now() + event.delay_ms;
  const tick = () => {
    const left = Math.max(0, Math.ceil((due - Date.now()) / 1000));
    line.textContent = `The model did not answer (${event.reason}). Retrying, attempt ${event.attempt} of ${event.max}${left > 0 ? `, in ${left} s` : "…"}`;
  };
  tick();
  retry.timer = setInterval(tick, 250);
  retry.line = line;
  $("messages").append(line);
}

function endRetry() {
  clearInterval(retry.timer);
  if (retry.line) retry.line.remove();
  retry.line = null;
}

// The live region says once that an answer is done (not each piece as it streams); a
// failure that is a budget's stop is said as such (failureText tells them apart).
function announce(type, error) {
  const words = { TurnCompleted: "The answer is complete.", TurnCancelled: "The answer was stopped.", TurnFailed: "The turn failed." };
  const budget = type === "TurnFailed" && failureText(error).startsWith("Stopped by a budget");
  $("announcer").textContent = budget ? "Stopped by a budget." : words[type];
}

/**
 * Says that a turn the stream did not see end ended with stored `status` (a first turn
 * can end before its new conversation's stream opens).
 */
export function announceEnded(status, error) {
  const types = { completed: "TurnCompleted", cancelled: "TurnCancelled", failed: "TurnFailed" };
  if (types[status]) announce(types[status], error);
}

/** Closes the event stream, if one is open. */
export function closeStream() {
  if (live.source) live.source.close();
  live.source = null;
  streamClosed();
}

/** Forgets the running turn's bubbles and cards (the timeline was drawn again). */
export function resetStream() {
  live.cards.clear();
  if (live.streaming) live.streaming.stop(); // its bubble is gone: nothing more to render
  live.streaming = null;
  live.reasoning = null;
}

/**
 * Opens conversation `id`'s event stream. `on.ended(streamed, turnId)`: a turn ended (show the
 * stored timeline; `streamed`: the MarkdownStream of its last answer, if one streamed
 * in); `on.reload`: the stream cannot be continued; `on.titled(title)`: a new title.
 * Settles once the stream is open (or failed to open). A broken stream shows the
 * connection banner until it is open again (connection.js).
 */
export function listen(id, on) {
  const source = new EventSource(`/api/conversations/${id}/events`);
  live.source = source;
  source.addEventListener("open", () => {
    if (live.source === source) streamOpen();
  });
  source.addEventListener("error", () => {
    if (live.source !== source) return;
    if (source.readyState !== EventSource.CLOSED) {
      streamLost(); // the browser reconnects, resuming after the last event it received
      return;
    }
    // The browser gave up (the answer was no event stream): once the server answers,
    // the stored state is loaded and a new stream opened.
    streamLost(() => {
      if (live.source !== source || state.conversation !== id) return;
      Promise.resolve(on.reload()).catch((error) => showError(error.message));
    });
  });
  const opened = new Promise((resolve) => {
    source.addEventListener("open", resolve, { once: true });
    source.addEventListener("error", resolve, { once: true });
  });
  source.onmessage = (message) => {
    if (state.conversation !== id) return;
    onEvent(JSON.parse(message.data), on);
  };
  source.addEventListener("confirm", (message) => {
    if (state.conversation !== id) return;
    showConfirmation(JSON.parse(message.data));
  });
  source.addEventListener("elicit", (message) => {
    if (state.conversation !== id) return;
    showElicitation(JSON.parse(message.data));
  });
  source.addEventListener("reload", () => {
    // The stream could not be continued: load the stored state, start a new one.
    source.close();
    if (state.conversation === id) on.reload();
  });
  return opened;
}

// The card of call `id` the timeline shows, if any.
function storedCard(id) {
  return $("messages").querySelector(`[data-call-id="${CSS.escape(id)}"]`);
}

function streamingAnswer() {
  if (!live.streaming) {
    const bubble = element("div", "message assistant streaming");
    live.streaming = new MarkdownStream(bubble);
    bubble.append(element("div", "message-actions"));
    $("messages").append(bubble);
  }
  return live.streaming;
}

// Reasoning text arrives in many small pieces: they are added once a frame, as one
// text node, so a long stream costs what its length costs.
function addReasoning(text) {
  if (!live.reasoning) {
    const details = reasoningBlock("");
    $("messages").append(details);
    live.reasoning = { box: details.lastChild, pieces: [], frame: 0 };
  }
  const reasoning = live.reasoning;
  reasoning.pieces.push(text);
  if (reasoning.frame) return;
  reasoning.frame = requestAnimationFrame(() => {
    reasoning.box.append(document.createTextNode(reasoning.pieces.join("")));
    reasoning.pieces = [];
    reasoning.frame = 0;
  });
}

// Deltas come by the thousand: the timeline follows its end once a frame, not once an
// event (each scroll lays the page out).
function scrollSoon() {
  if (live.scrollFrame) return;
  live.scrollFrame = requestAnimationFrame(() => {
    live.scrollFrame = 0;
    scrollDown();
  });
}

function onEvent(event, on) {
  switch (event.type) {
    case "TurnStarted":
      state.busy = true;
      break;
    case "TextDelta":
      endRetry();
      streamingAnswer().push(event.text);
      scrollSoon(); // a delta changes no control: only the end is followed, once a frame
      return;
    case "ReasoningDelta":
      addReasoning(event.text);
      scrollSoon();
      return;
    case "Retrying":
      if (live.streaming) live.streaming.clear();
      if (live.reasoning) {
        live.reasoning.box.replaceChildren();
        live.reasoning.pieces = [];
      }
      showRetry(event);
      break;
    case "ToolCallStarted": {
      endRetry();
      live.streaming = null; // the next step's text gets its own bubble
      live.reasoning = null;
      // A replayed start of a call the stored timeline shows already keeps its card.
      const shown = storedCard(event.call_id);
      const card = shown || toolCard({ call_id: event.call_id, tool_name: event.tool_name, arguments: event.arguments });
      live.cards.set(event.call_id, card);
      if (!shown) $("messages").append(card);
      break;
    }
    case "ToolCallCompleted": {
      const card = live.cards.get(event.call_id) || storedCard(event.call_id);
      if (card) completeCard(card, event.status, event.result);
      break;
    }
    case "ToolCallHooks": {
      const card = live.cards.get(event.call_id) || storedCard(event.call_id);
      if (card) showHooks(card, event.hooks);
      break;
    }
    case "HookWarning": {
      const card = event.call_id && (live.cards.get(event.call_id) || storedCard(event.call_id));
      if (card) hookWarning(card, event.message);
      else showError(`Hook: ${event.message}`);
      break;
    }
    case "SubAgentStarted":
    case "SubAgentToolCall":
    case "SubAgentFinished": {
      const card = live.cards.get(event.call_id) || storedCard(event.call_id);
      if (card) subAgentEvent(card, event);
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
      on.titled(event.title);
      break;
    case "Warning":
      showError(`Warning: ${event.message}`);
      break;
    case "TurnCancelled":
      state.stopped.add(event.turn_id);
    // falls through
    case "TurnFailed":
      if (event.type === "TurnFailed") showError(failureText(event.error));
    // falls through
    case "TurnCompleted":
      announce(event.type, event.error);
      endRetry();
      state.busy = false;
      updateControls();
      on.ended(live.streaming, event.turn_id); // the stored timeline, with the answer rendered as Markdown
      return;
    default:
      break;
  }
  updateControls();
  scrollDown();
}
