// The stored timeline drawn: messages, tool cards, reasoning. Buttons carry their
// action in `data-action` (and the row in `data-*`); actions.js handles the clicks.
import { $, button, element, scrollDown } from "./dom.js";
import { addCopyMessage, enhance } from "./markdown.js";
import { state } from "./session.js";
import { toolCard } from "./toolcards.js";

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
    enhance(bubble);
    const actions = element("div", "message-actions");
    if (state.stopped.has(row.turn_id)) {
      bubble.classList.add("stopped");
      actions.append(element("span", "stopped-mark", "Stopped"));
    }
    bubble.append(actions);
    addCopyMessage(actions, row.content);
  } else {
    bubble.textContent = row.content;
  }
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
  row.classList.add("marked");
  row.tabIndex = -1;
  row.scrollIntoView({ block: "center" });
  row.focus({ preventScroll: true });
  return true;
}

// Appends the element of stored row `row` to `box` (none for a replaced message or the
// empty message that opens a tool step); `answered(bubble)` for an answer's bubble.
function draw(box, row, answered) {
  if (row.kind === "message") {
    if (row.replaced_by) return; // shown as its replacement
    if (row.role === "assistant" && row.content === "") return; // opens a tool step
    const bubble = messageBubble(row);
    rows.set(bubble, row);
    if (row.role === "assistant") answered(bubble);
    box.append(bubble);
  } else if (row.kind === "tool_call") {
    box.append(toolCard(row));
  } else if (row.kind === "think_block") {
    box.append(reasoningBlock(row.content));
  }
}

/** Draws `timeline` (`GET /api/conversations/{id}`) into the message list. */
export function renderTimeline(timeline) {
  const box = $("messages");
  box.replaceChildren();
  let lastAnswer = null;
  for (const row of timeline.rows) {
    const before = box.lastElementChild;
    draw(box, row, (bubble) => {
      lastAnswer = { bubble, row };
    });
    if (box.lastElementChild !== before) box.lastElementChild.dataset.seq = row.seq;
  }
  if (lastAnswer && !lastAnswer.row.summarized) {
    const again = button("regenerate", "regenerate");
    again.dataset.action = "regenerate";
    again.dataset.turnId = lastAnswer.row.turn_id;
    again.setAttribute("aria-label", "Regenerate the last answer");
    lastAnswer.bubble.querySelector(".message-actions").append(again);
  }
  scrollDown();
}
