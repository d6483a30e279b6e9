// A file write's diff. When WriteFile replaced a text file its result is its one-line
// report, a blank line, then a fenced ```diff block: `--- a/PATH`, `+++ b/PATH`, unified
// hunks (`@@ -a,b +c,d @@`, then lines starting ' ', '-' or '+'), maybe a last
// `… N more lines`. The block is drawn line by line as text (textContent only): added
// lines green, removed red, hunk headers muted.
import { element } from "./dom.js";

const OPENING = "\n\n```diff\n";
const CLOSING = /\n```\s*$/;

/**
 * `result` split into its report and the lines of its diff block; `null` when it has
 * no such block (a new file, another tool, an error).
 */
export function splitDiff(result) {
  if (typeof result !== "string") return null;
  const start = result.indexOf(OPENING);
  if (start < 0) return null;
  const rest = result.slice(start + OPENING.length - 1); // from the newline before the body
  const end = CLOSING.exec(rest);
  if (!end) return null;
  const body = rest.slice(1, end.index);
  return { report: result.slice(0, start), lines: body === "" ? [] : body.split("\n") };
}

// The kind of a diff line, by how it starts. `--- `/`+++ ` are file headers only before
// the first hunk: after it they are a removed `-- …` or an added `++ …` line.
function lineKind(line, inHunks) {
  if (!inHunks && (line.startsWith("--- ") || line.startsWith("+++ "))) return "file";
  if (line.startsWith("@@")) return "hunk";
  if (line.startsWith("+")) return "add";
  if (line.startsWith("-")) return "del";
  if (line.startsWith("…")) return "more";
  return "context";
}

/** The diff's `lines` as a block: one element a line, its kind as its class. */
export function diffBlock(lines) {
  const block = element("div", "diff");
  block.setAttribute("role", "group");
  block.setAttribute("aria-label", "Changes to the file");
  block.tabIndex = 0; // scrolls sideways with the keyboard
  const rows = element("div", "diff-lines");
  let inHunks = false;
  for (const line of lines) {
    const kind = lineKind(line, inHunks);
    inHunks ||= kind === "hunk";
    rows.append(element("div", `diff-line diff-${kind}`, line === "" ? " " : line));
  }
  block.append(rows);
  return block;
}
