// The stored timeline drawn: messages, tool cards, reasoning. Buttons carry their
// action in `data-action` (and the row in `data-*`); actions.js handles the clicks.
import { attachmentList } from "./attachments.js";
import { $, button, element, scrollDown } from "./dom.js";
import { countFolded, summaryCard } from "./compression.js";
import { addCopyMessage, enhance, forgetCode } from "./markdown.js";
import { state } from "./session.js";
import { drawFileChanges } from "./changes.js";
import { drawSubAgents } from "./subagents.js";
import { toolCard } from "./toolcards.js";
import { addVersions } from "./versions.js";

const rows = new WeakMap(); // bubble -> its stored row

/** The stored row `bubble` shows. */
export function rowOf(bubble) {
  return rows.get(bubble);
}

/** A collapsed reasoning block whose text element is returned as `.lastChild`. */
export function reasoningBlock(text) {
  const details = element("details", "reasoning");
  details.append(element("summary", "", "Reasoning"), element("div", "", text));
  return details;
}

// The bubble of stored message `row`; `kept`: the bubble the answer streamed into, made
// the stored answer's (it shows the same rendering) rather than drawn again.
function messageBubble(row, stopped, kept) {
  const bubble = kept || element("div");
  const classes = `message ${row.role}${row.role === "assistant" && (kept || typeof row.html === "string") ? " rendered" : ""}`;
  // A kept bubble's classes change only if they must: each change restyles its answer.
  if (bubble.className !== classes) bubble.className = classes;
  bubble.dataset.id = row.id;
  if (row.summarized) bubble.classList.add("summarized");
  if (row.undone) {
    bubble.classList.add("undone");
    bubble.title = "undone: kept in the history, no longer sent to the model";
  }
  if (row.role === "assistant" && (kept || typeof row.html === "string")) {
    if (kept) {
      for (const old of kept.querySelectorAll(":scope > .message-actions")) old.remove();
    } else {
      // One part, as a streamed answer has several (markdown.js).
      const part = element("div", "md-part");
      part.innerHTML = row.html; // rendered and sanitized by the server
      enhance(part);
      bubble.append(part);
    }
    const actions = element("div", "message-actions");
    if (stopped || state.stopped.has(row.turn_id)) {
      bubble.classList.add("stopped");
      actions.append(element("span", "stopped-mark", "Stopped"));
    }
    bubble.append(actions);
    addCopyMessage(actions, row.content);
  } else {
    bubble.textContent = row.content;
  }
  if (row.attachments && row.attachments.length > 0) bubble.append(attachmentList(row));
  if (row.role === "user" && !row.replaced_by) {
    const edit = button("edit", "edit");
    edit.dataset.action = "edit";
    bubble.prepend(edit);
  }
  return bubble;
}

/** Scrolls to the row with sequence number `seq` and marks it; false if it is not shown. */
export function markRow(seq) {
  for (const old of document.querySelectorAll("#messages .marked")) old.classList.remove("marked");
  const row = document.querySelector(`#messages [data-seq="${Number(seq)}"]`);
  if (!row) return false;
  // A row folded under the summary card is unfolded first.
  for (let fold = row.closest("details"); fold; fold = fold.parentElement.closest("details")) fold.open = true;
  row.classList.add("marked");
  row.tabIndex = -1;
  row.scrollIntoView({ block: "center" });
  row.focus({ preventScroll: true });
  return true;
}

// Appends the element of stored row `row` to `box` (none for a replaced message or the
// empty message that opens a tool step); `answered(bubble)` for an answer's bubble.
// `kept`: the streamed bubble row `row` keeps, which stays where it is in the page;
// `kept.slot` marks its place in `box`.
function draw(box, row, answered, stopped, kept) {
  if (row.kind === "message") {
    if (row.replaced_by) return; // shown as its replacement
    if (row.role === "assistant" && row.content === "") return; // opens a tool step
    const bubble = messageBubble(row, stopped, kept && kept.bubble);
    rows.set(bubble, row);
    if (row.role === "assistant") answered(bubble);
    box.append(kept ? kept.slot : bubble);
  } else if (row.kind === "tool_call") {
    box.append(toolCard(row));
  } else if (row.kind === "think_block") {
    box.append(reasoningBlock(row.content));
  }
}

// How a failed turn's error is said: a budget's stop (agent.json budgets, the error
// starts "budget reached:") as such, any other as a failure.
export function failureText(error) {
  const text = error || "no reason was stored";
  const budget = "budget reached:";
  return text.startsWith(budget)
    ? `Stopped by a budget:${text.slice(budget.length)}`
    : `The turn failed: ${text}`;
}

// A failed turn's stored outcome: its error (as text) and a Retry button, which
// regenerates the turn (actions.js).
function failedCard(turn) {
  const card = element("div", "turn-failed");
  card.setAttribute("role", "group");
  card.setAttribute("aria-label", "Failed turn");
  card.append(element("p", "turn-error", failureText(turn.error)));
  const retry = button("retry", "Retry");
  retry.dataset.action = "retry";
  retry.dataset.turnId = turn.id;
  card.append(retry);
  return card;
}

// A completed turn whose answer a limit cut: said under the answer, never shown as whole.
const CUT_WORDS = {
  output_limit: "The answer was cut at the output limit. Ask to continue, or raise maxOutputTokens in models.json.",
  context_full: "The answer was cut: the model server's context filled up. Compress the conversation or give the server a larger context.",
};

function cutNote(turn) {
  const note = element("p", "turn-cut", CUT_WORDS[turn.cut] || "The answer was cut short.");
  note.setAttribute("role", "note");
  return note;
}

// The streamed answer `streamed` ({bubble, html, text}) the stored timeline keeps, if
// the bubble is still in `box` and the timeline's last answer is what it shows: the
// same HTML or, read without its HTML (`text` given), the same Markdown:
// {bubble, row, slot}.
function keptAnswer(box, timeline, streamed) {
  if (!streamed || streamed.bubble.parentElement !== box) return null;
  const row = timeline.rows.findLast((r) => r.kind === "message" && r.role === "assistant");
  if (!row || row.summarized || row.replaced_by) return null;
  const same = typeof row.html === "string" ? row.html === streamed.html : streamed.text !== null && row.content === streamed.text;
  return same ? { bubble: streamed.bubble, row, slot: element("div") } : null;
}

/** Whether `renderTimeline(timeline, streamed)` keeps the streamed answer's bubble. */
export function keepsStreamed(timeline, streamed) {
  return keptAnswer($("messages"), timeline, streamed) !== null;
}

/**
 * Draws `timeline` (`GET /api/conversations/{id}`) into the message list. `streamed`
 * ({bubble, html, text}): the answer that just streamed into `bubble`, showing `html`
 * (the rendering of Markdown `text`); when the stored answer is that, the bubble stays in place as the stored answer (a
 * long answer is not parsed, enhanced and laid out again), the rest drawn around it.
 */
export function renderTimeline(timeline, streamed = null) {
  const box = $("messages");
  const kept = keptAnswer(box, timeline, streamed);
  for (const child of [...box.children]) {
    if (kept && child === kept.bubble) continue;
    forgetCode(child);
    child.remove();
  }
  const list = document.createDocumentFragment();
  let lastAnswer = null;
  const outcomes = new Map((timeline.turns || []).map((turn) => [turn.id, turn]));
  const lastOfTurn = new Map(); // turn id -> the last element drawn for it
  const folded = summaryCard(timeline.conversation);
  if (folded) list.append(folded.card);
  for (const row of timeline.rows) {
    const into = folded && row.summarized ? folded.rows : list;
    const before = into.lastElementChild;
    const stopped = outcomes.get(row.turn_id)?.status === "cancelled";
    draw(into, row, (bubble) => (lastAnswer = { bubble, row }), stopped, kept && kept.row === row ? kept : null);
    if (into.lastElementChild !== before) {
      const shown = kept && into.lastElementChild === kept.slot ? kept.bubble : into.lastElementChild;
      shown.dataset.seq = row.seq;
      shown.dataset.turn = row.turn_id;
      lastOfTurn.set(row.turn_id, shown);
    }
  }
  if (kept) {
    // The drawn rows go before and after the kept bubble, which is never moved.
    const drawn = [...list.childNodes];
    const at = drawn.indexOf(kept.slot);
    kept.bubble.before(...drawn.slice(0, at));
    kept.bubble.after(...drawn.slice(at + 1));
  } else {
    box.append(list);
  }
  if (folded) countFolded(folded);
  drawSubAgents(box, timeline.sub_agents);
  for (const bubble of box.querySelectorAll(".message.user")) {
    const row = rows.get(bubble);
    if (row && row.versions) addVersions(bubble, row);
  }
  for (const [turnId, last] of lastOfTurn) {
    const turn = outcomes.get(turnId);
    if (turn && turn.status === "failed" && !turn.undone) last.after(failedCard(turn));
    if (turn && turn.cut) last.after(cutNote(turn));
  }
  drawFileChanges(timeline.file_changes, lastOfTurn);
  if (lastAnswer && !lastAnswer.row.summarized) {
    const again = button("regenerate", "regenerate");
    again.dataset.action = "regenerate";
    again.dataset.turnId = lastAnswer.row.turn_id;
    again.setAttribute("aria-label", "Regenerate the last answer");
    lastAnswer.bubble.querySelector(".message-actions").append(again);
  }
  scrollDown();
}
