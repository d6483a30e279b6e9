// What each turn's tool calls did to the workspace's files: a "files changed" card
// under the turn (each path: created, modified, deleted or renamed, its sizes, a change
// whose contents were not kept says so) with a "Restore files to before this turn"
// action; and under the newest restore, what it changed with an "Undo this restore"
// action. Both go through POST /api/conversations/{id}/rewind (actions.js asks first).
import { api } from "./api.js";
import { humanSize } from "./attachments.js";
import { diffBlock } from "./diff.js";
import { button, element } from "./dom.js";
import { showError, state } from "./session.js";

const size = (bytes) => (bytes === null || bytes === undefined ? "none" : humanSize(bytes));

function line(change) {
  const item = element("li", `file-change ${change.kind}`);
  const path = change.from ? `${change.from} → ${change.path}` : change.path;
  item.append(
    element("span", "change-kind", change.kind),
    element("span", "change-path", path),
    element("span", "change-sizes", `${size(change.size_before)} → ${size(change.size_after)}`),
  );
  if (change.not_captured) {
    item.append(element("span", "not-captured", `not kept, cannot be restored: ${change.not_captured}`));
  } else if (!change.rewind) {
    const show = button("show-diff", "diff", null, `Show what changed in ${change.path}`);
    show.dataset.action = "file-diff";
    show.dataset.turnId = change.turn_id;
    show.dataset.path = change.path;
    show.setAttribute("aria-expanded", "false");
    item.append(show);
  }
  return item;
}

/** Shows (fetched once) or hides the diff of the file change whose button is `show`. */
export async function toggleDiff(show) {
  const item = show.closest(".file-change");
  const shown = item.querySelector(":scope > .diff, :scope > .diff-note");
  if (shown) {
    shown.hidden = !shown.hidden;
    show.setAttribute("aria-expanded", String(!shown.hidden));
    return;
  }
  const { turnId, path } = show.dataset;
  try {
    const answer = await api(
      `/api/conversations/${state.conversation}/turns/${encodeURIComponent(turnId)}/diff?path=${encodeURIComponent(path)}`,
    );
    // The fenced block's lines, without its opening and closing fences.
    const block = answer.diff ? diffBlock(answer.diff.split("\n").slice(1, -1)) : element("p", "diff-note", answer.note);
    item.append(block);
    show.setAttribute("aria-expanded", "true");
  } catch (error) {
    showError(error.message);
  }
}

function card(className, label, heading, changes) {
  const box = element("div", className);
  box.setAttribute("role", "group");
  box.setAttribute("aria-label", label);
  const list = element("ul", "file-change-list");
  for (const change of changes) list.append(line(change));
  const status = element("p", "file-changes-status");
  status.setAttribute("role", "status");
  box.append(element("div", "file-changes-head", heading), list, status);
  return box;
}

const counted = (n) => (n === 1 ? "1 file" : `${n} files`);

/** The card of what turn `turnId`'s tool calls changed, with its restore action. */
function turnCard(turnId, changes) {
  const box = card("file-changes", "Files changed", `${counted(changes.length)} changed`, changes);
  box.dataset.turnId = turnId;
  const restore = button("restore-files", "Restore files to before this turn");
  restore.dataset.action = "restore-files";
  restore.dataset.turnId = turnId;
  box.insertBefore(restore, box.lastElementChild);
  return box;
}

/** The card of the newest restore's own changes, with its undo action. */
function restoreCard(rewindId, changes) {
  const box = card("file-changes restored", "Files restored", `A restore changed ${counted(changes.length)}`, changes);
  box.dataset.rewindId = rewindId;
  const undo = button("undo-restore", "Undo this restore");
  undo.dataset.action = "undo-restore";
  box.insertBefore(undo, box.lastElementChild);
  return box;
}

/**
 * Draws the timeline's `file_changes` after the last element drawn for each turn
 * (`lastOfTurn`: turn id → element): a card per turn that changed files, and one for
 * the newest restore.
 */
export function drawFileChanges(fileChanges, lastOfTurn) {
  const own = new Map();
  const restores = new Map();
  for (const change of fileChanges || []) {
    const into = change.rewind ? restores : own;
    const key = change.rewind || change.turn_id;
    if (!into.has(key)) into.set(key, []);
    into.get(key).push(change);
  }
  for (const [turnId, changes] of own) {
    lastOfTurn.get(turnId)?.after(turnCard(turnId, changes));
  }
  const newest = [...restores.keys()].pop();
  if (newest) {
    const changes = restores.get(newest);
    const last = lastOfTurn.get(changes[0].turn_id);
    const after = last?.nextElementSibling?.classList.contains("file-changes") ? last.nextElementSibling : last;
    after?.after(restoreCard(newest, changes));
  }
}

/** What a rewind's answer says, in a sentence or two. */
export function rewindSummary(done) {
  const parts = [];
  parts.push(done.restored.length > 0 ? `Restored ${counted(done.restored.length)}.` : "No file needed restoring.");
  if (done.conflicts.length > 0) {
    parts.push(`Kept ${counted(done.conflicts.length)} changed since: ${done.conflicts.map((c) => c.path).join(", ")}.`);
  }
  if (done.not_captured.length > 0) {
    parts.push(`Could not restore ${done.not_captured.map((c) => c.path).join(", ")} (contents not kept).`);
  }
  if (done.undone.length > 0) parts.push(`Took ${done.undone.length === 1 ? "1 turn" : `${done.undone.length} turns`} out of the conversation.`);
  return parts.join(" ");
}
