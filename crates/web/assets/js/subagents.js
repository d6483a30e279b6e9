// Sub-agents inside their Delegate call's card: one nested card each with the agent,
// its task in a few words, a live status (the tool it runs, how many tool calls it
// made), how it ended, and a link to its own conversation. Fed by the parent's
// SubAgentStarted / SubAgentToolCall / SubAgentFinished events, and rebuilt from the
// timeline's `sub_agents` when the page loads the conversation again.
import { element } from "./dom.js";
import { addressOf } from "./router.js";

const ENDED = { completed: "done", failed: "failed", cancelled: "cancelled" };

// The nested cards' box inside Delegate card `card`.
function list(card) {
  const body = card.querySelector(":scope > .tool-body");
  let box = body.querySelector(":scope > .subagents");
  if (!box) {
    box = element("div", "subagents");
    box.setAttribute("role", "list");
    box.setAttribute("aria-label", "Sub-agents");
    body.prepend(box);
  }
  return box;
}

// The nested card of sub-agent conversation `id` in `card`, made when missing.
function nested(card, id, agent, description) {
  const box = list(card);
  const shown = [...box.children].find((c) => c.dataset.conversationId === id);
  if (shown) return shown;
  const sub = element("div", "subagent running");
  sub.setAttribute("role", "listitem");
  sub.dataset.conversationId = id;
  const head = element("div", "subagent-head");
  const open = element("a", "open", "open");
  open.href = addressOf(id);
  open.setAttribute("aria-label", `Open ${agent}'s conversation`);
  head.append(element("span", "agent", agent), element("span", "description", description), open);
  sub.append(head, element("div", "subagent-status", "started"));
  box.append(sub);
  return sub;
}

function calls(n) {
  return n === 1 ? "1 tool call" : `${n} tool calls`;
}

// Shows `state` (`running`, `completed`, `failed`, `cancelled`) and `text` on `sub`.
function show(sub, state, text) {
  sub.className = `subagent ${state}`;
  sub.querySelector(".subagent-status").textContent = text;
}

function ended(sub, outcome, error, toolCalls) {
  const word = ENDED[outcome] || outcome;
  const reason = outcome === "failed" && error ? `: ${error.split("\n")[0]}` : "";
  show(sub, outcome, `${word}${reason} · ${calls(toolCalls)}`);
}

/** Follows a SubAgent* event of the parent's stream in Delegate card `card`. */
export function subAgentEvent(card, event) {
  const description = event.description || "";
  const sub = nested(card, event.sub_conversation_id, event.agent, description);
  if (event.type === "SubAgentStarted") {
    sub.querySelector(".description").textContent = description;
    show(sub, "running", "started");
  } else if (event.type === "SubAgentToolCall") {
    const doing = event.status === "running" ? `running ${event.tool_name}` : "thinking";
    show(sub, "running", `${doing} · ${calls(event.tool_calls)}`);
  } else if (event.type === "SubAgentFinished") {
    ended(sub, event.outcome, event.error, event.tool_calls);
  }
}

/** Rebuilds the nested cards of the timeline's `sub_agents` in the Delegate cards of `box`. */
export function drawSubAgents(box, subAgents) {
  for (const info of subAgents || []) {
    const card = box.querySelector(`.tool[data-call-id="${CSS.escape(info.call_id)}"]`);
    if (!card) continue;
    const prefix = `${info.agent}: `;
    const description = info.title.startsWith(prefix) ? info.title.slice(prefix.length) : info.title;
    const sub = nested(card, info.conversation_id, info.agent, description);
    if (info.outcome) ended(sub, info.outcome, info.error, info.tool_calls);
    else show(sub, "running", `working · ${calls(info.tool_calls)}`);
  }
}
