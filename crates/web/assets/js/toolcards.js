// Tool cards by kind: a command as a terminal block (command, output, exit code and
// sandbox), a file write as its path and content (its diff when it replaced a file), reads and task tools folded to one
// line, anything else with its arguments pretty-printed; the hooks.json runs for the call
// listed under it. Every card folds (<details>).
import { diffBlock, splitDiff } from "./diff.js";
import { button, element } from "./dom.js";
import { connectButton, serverToConnect } from "./mcp.js";

const RESULT_PREVIEW_CHARS = 600;
const FOLDED = new Set(["ReadFile", "ListFiles", "GrepContent", "GetCurrentTime", "SearchHistory", "ReadConversationData", "ReadSkill"]);
const WRITES = new Set(["WriteFile", "AppendFile"]);

function parsed(text) {
  try {
    const value = JSON.parse(text);
    return value && typeof value === "object" ? value : null;
  } catch (_) {
    return null;
  }
}

// What the card's title names beside the tool: the command, the path, the skill.
function subject(args) {
  if (!args) return "";
  for (const key of ["command", "path", "name", "title", "query"]) {
    if (typeof args[key] === "string") return args[key];
  }
  return "";
}

function kind(name) {
  if (name === "ExecuteCommand") return "command";
  if (WRITES.has(name)) return "write";
  if (FOLDED.has(name) || /Tasks?$/.test(name)) return "folded";
  return "generic";
}

/** A tool call's card (`call`: a stored tool-call row, or a ToolCallStarted event). */
export function toolCard(call) {
  const status = call.status || "running";
  const args = parsed(call.arguments);
  const card = element("details", `tool ${status} kind-${kind(call.tool_name)}`);
  card.dataset.callId = call.call_id;
  card.open = kind(call.tool_name) !== "folded";
  const head = element("summary");
  const about = subject(args);
  head.append(element("span", "name", call.tool_name));
  if (about) head.append(element("span", "subject", about.split("\n")[0]));
  head.append(element("span", "status", status), element("span", "fold-hint"));
  card.append(head);
  const body = element("div", "tool-body");
  if (kind(call.tool_name) === "command") {
    const command = element("pre", "arguments command-line", args && typeof args.command === "string" ? args.command : call.arguments);
    body.append(command, element("pre", "result"), element("div", "exit"));
  } else if (kind(call.tool_name) === "write") {
    const path = element("div", "file-path", args && args.path ? args.path : "");
    const content = element("pre", "arguments file-content", args && typeof args.content === "string" ? args.content : call.arguments);
    body.append(path, content, element("pre", "result"));
  } else {
    const pretty = args ? JSON.stringify(args, null, 2) : call.arguments;
    body.append(element("pre", "arguments", pretty), element("pre", "result"));
  }
  if (Array.isArray(call.hooks) && call.hooks.length) body.append(hooksList(call.hooks));
  card.append(body);
  setResult(card, call.result);
  return card;
}

// The hooks.json runs for the call, a line each: `PreToolUse: sh check.sh → exit 2,
// 12 ms, block` (text only).
function hooksList(runs) {
  const box = element("div", "hooks");
  box.append(element("span", "hooks-label", "hooks"));
  const list = element("ul");
  for (const run of runs) {
    const exit = run.exit_code === null || run.exit_code === undefined ? "killed" : `exit ${run.exit_code}`;
    const decision = run.decision ? `, ${run.decision}` : "";
    const item = element("li", `hook ${run.decision || "none"}`, `${run.event}: ${run.command} → ${exit}, ${run.duration_ms} ms${decision}`);
    list.append(item);
  }
  box.append(list);
  return box;
}

/** Shows the hooks.json `runs` of `card`'s call under it (live: sent before the call
 * finished), in place of the ones it showed. */
export function showHooks(card, runs) {
  const body = card.querySelector(".tool-body");
  if (!body || !Array.isArray(runs) || !runs.length) return;
  const shown = body.querySelector(".hooks");
  if (shown) shown.replaceWith(hooksList(runs));
  else body.append(hooksList(runs));
}

/** Shows on `card` that one of its call's hooks failed (`message`); the turn went on. */
export function hookWarning(card, message) {
  const body = card.querySelector(".tool-body");
  if (body) body.append(element("div", "hook-warning", `hook: ${message}`));
}

/** Marks `card` finished with `status` and `result`. */
export function completeCard(card, status, result) {
  card.classList.remove("running", "ok", "error", "denied", "cancelled", "interrupted");
  card.classList.add(status);
  card.querySelector(".status").textContent = status;
  setResult(card, result);
}

// A command's result ends in one status line, `[exit code: N; sandbox: …]`: shown
// apart from the output.
function splitExit(result) {
  const match = /\n?\[((?:exit code|killed by signal)[^\]\n]*)\]\s*$/.exec(result);
  if (!match) return [result, ""];
  return [result.slice(0, match.index), match[1]];
}

// A write that replaced a file: its report, then its diff in place of the content
// written (which "show the whole file" brings back).
function showDiff(card, box, result) {
  const diff = card.classList.contains("kind-write") ? splitDiff(result) : null;
  if (!diff) return result;
  const content = card.querySelector(".file-content");
  content.hidden = true;
  const whole = button("show-file", "show the whole file", () => {
    content.hidden = false;
    whole.remove();
  });
  box.after(diffBlock(diff.lines), whole);
  return diff.report;
}

// A call that failed because its MCP server is not connected: a Connect button.
function offerConnect(card, result) {
  const server = card.classList.contains("error") ? serverToConnect(result) : null;
  if (!server) return;
  const said = element("p", "mcp-connect-status");
  said.setAttribute("role", "status");
  card.querySelector(".tool-body").append(connectButton(server, (text) => (said.textContent = text)), said);
}

function setResult(card, result) {
  const box = card.querySelector(".result");
  for (const old of card.querySelectorAll(".show-all, .diff, .show-file, .mcp-connect, .mcp-connect-status")) old.remove();
  offerConnect(card, result);
  if (result === null || result === undefined) {
    box.textContent = "";
    box.hidden = true;
    return;
  }
  let text = showDiff(card, box, result);
  const exit = card.querySelector(".exit");
  if (exit) {
    const [output, line] = splitExit(text);
    text = output;
    exit.textContent = line;
  }
  box.hidden = text === "";
  if (text.length <= RESULT_PREVIEW_CHARS) {
    box.textContent = text;
    return;
  }
  box.textContent = text.slice(0, RESULT_PREVIEW_CHARS) + "…";
  const all = button("show-all", "show all", () => {
    box.textContent = text;
    all.remove();
  });
  box.after(all);
}
