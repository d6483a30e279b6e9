// Answers as Markdown: rendered (and sanitized) by the server — the same renderer for a
// streaming answer as for a stored one, so nothing jumps when the answer ends — and
// finished here: code blocks highlighted (highlight.js, vendored under /assets/vendor/)
// with their language and a Copy button, wide tables scrolling in their own box.
import hljs from "../vendor/highlight.min.js";
import { apiText } from "./api.js";
import { button, element } from "./dom.js";

// The server's rendering of `markdown` ({html, complete}); `open`: the end of an answer
// still streaming. `complete`: the HTML is also the rendering of the text as a complete
// answer (nothing was left open).
async function renderWith(markdown, open) {
  const { text, headers } = await apiText(`/api/markdown${open ? "?open=true" : ""}`, markdown);
  return { html: text, complete: headers.get("x-same-when-complete") === "true" };
}

async function render(markdown, open) {
  return (await renderWith(markdown, open)).html;
}

/** Copies `text` to the clipboard; `done(ok)` when it is there (or not). */
export function copyText(text, done) {
  const fallback = () => {
    const area = element("textarea");
    area.value = text;
    document.body.append(area);
    area.select();
    const ok = document.execCommand("copy");
    area.remove();
    done(ok);
  };
  if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => done(true), fallback);
  else fallback();
}

function copyButton(label, text) {
  const copy = button("copy", "Copy", () =>
    copyText(text(), (ok) => {
      copy.textContent = ok ? "Copied" : "Copy failed";
      setTimeout(() => (copy.textContent = "Copy"), 1500);
    }),
  );
  copy.setAttribute("aria-label", label);
  return copy;
}

/**
 * Shows `markdown` in `target` as the server renders and sanitizes it (the path of
 * answers), finished as answers are; the text itself until the rendering arrives.
 */
export async function showMarkdown(target, markdown) {
  target.textContent = markdown;
  target.innerHTML = await render(markdown, false); // sanitized by the server
  enhance(target);
}

function highlight(code) {
  // highlight.js escapes the text; its output is the text in <span class="hljs-…">.
  code.innerHTML = hljs.highlight(code.textContent, { language: code.dataset.language, ignoreIllegals: true }).value;
  code.classList.add("hljs");
}

// A long answer has code blocks by the thousand: each is highlighted when it comes
// near the view, not all at once when the answer is drawn. An answer's blocks are
// rendered only near the view (`content-visibility: auto`, app.css), and the browser
// says when one starts being rendered: its code is highlighted then. (The event does
// not bubble in every browser: it is heard in the capture phase.) Code elsewhere, or
// in a browser without that event, is watched by an IntersectionObserver — a
// thousand targets of one cost the page hundreds of milliseconds a frame's worth.
const blocksSayWhenRendered = typeof ContentVisibilityAutoStateChangeEvent === "function";
document.addEventListener(
  "contentvisibilityautostatechange",
  (event) => {
    if (event.skipped || !(event.target instanceof Element)) return;
    for (const code of event.target.querySelectorAll("code[data-language]:not(.hljs)")) highlight(code);
  },
  { capture: true },
);
const nearView = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      nearView.unobserve(entry.target);
      highlight(entry.target);
    }
  },
  { rootMargin: "1500px 0px", scrollMargin: "1500px 0px" },
);

/**
 * Stops waiting to highlight the code blocks under `root`, before it is emptied: the
 * observer holds each block it waits for, and a block never scrolled near would
 * otherwise stay held after the timeline is drawn again.
 */
export function forgetCode(root) {
  for (const code of root.querySelectorAll("code[data-language]:not(.hljs)")) nearView.unobserve(code);
}

/** Labels the code blocks under `root`, gives each a Copy button and highlights it near the view. */
export function enhance(root) {
  for (const pre of root.querySelectorAll("pre:not(.enhanced)")) {
    const code = pre.querySelector("code");
    if (!code) continue;
    pre.classList.add("enhanced");
    const match = /(?:^|\s)language-([\w+#-]+)/.exec(code.className);
    const language = match ? match[1] : "";
    const source = code.textContent;
    if (language && hljs.getLanguage(language)) {
      code.dataset.language = language;
      // In an answer's part (whose blocks say when they are rendered) or elsewhere.
      if (!blocksSayWhenRendered || !pre.closest(".md-part")) nearView.observe(code);
    }
    const block = element("div", "code-block");
    const head = element("div", "code-head");
    head.append(element("span", "code-language", language || "text"), copyButton(`Copy the ${language || "text"} code`, () => source));
    pre.replaceWith(block);
    block.append(head, pre);
  }
  // A task list's checkbox says what it shows.
  for (const box of root.querySelectorAll('input[type="checkbox"]:not([aria-label])')) {
    box.setAttribute("aria-label", box.checked ? "Done" : "Not done");
  }
  for (const table of root.querySelectorAll("table:not(.enhanced)")) {
    table.classList.add("enhanced");
    const scroller = element("div", "table-scroll");
    table.replaceWith(scroller);
    scroller.append(table);
  }
}

/** Puts a Copy button for the whole of `markdown` on `bubble`. */
export function addCopyMessage(bubble, markdown) {
  const copy = copyButton("Copy the whole answer", () => markdown);
  copy.classList.add("copy-message");
  bubble.append(copy);
}

// The most Markdown rendered as one part of a streaming answer, in characters.
const PART_MAX = 128 * 1024;

// Where the streamed text's finished blocks end, in order: after each blank line outside
// a code fence that is followed by a line starting a new block (not a list item, a
// quote or an indented continuation, which may still belong to the block before).
function blockEnds(text) {
  const ends = [];
  let fence = false;
  let blank = false;
  let offset = 0;
  for (const line of text.split("\n")) {
    const next = offset + line.length + 1;
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      if (!fence && blank && offset > 0) ends.push(offset);
      fence = !fence;
      blank = false;
    } else if (!fence) {
      if (line.trim() === "") {
        blank = true;
      } else {
        if (blank && !/^(\s|[-*+>|]|\d+[.)])/.test(line)) ends.push(offset);
        blank = false;
      }
    }
    offset = next;
  }
  return ends;
}

// The finished blocks of `text` in parts of at most PART_MAX characters each (a block
// longer than that is a part of its own), as [start, end) offsets; none when no block
// is finished.
function finishedParts(text) {
  const parts = [];
  let start = 0;
  let end = 0;
  for (const at of blockEnds(text)) {
    if (at - start > PART_MAX && end > start) {
      parts.push([start, end]);
      start = end;
    }
    end = at;
  }
  if (end > start) parts.push([start, end]);
  return parts;
}

// Markdown whose blocks may not render alone as they do in the whole answer: a link
// reference definition (links anywhere in the answer use it) or an HTML block that may
// run across blank lines. (Inside a code fence such a line is harmless; it is only
// taken for one.)
const REACHES_ACROSS_BLOCKS = /^ {0,3}(?:\[[^\]]+\]:|<(?:pre|script|style|textarea|!--|\?|![A-Za-z]|!\[CDATA\[))/im;

/**
 * Whether `text`, rendered block by block as it streamed, renders as it does whole
 * (nothing in it reaches across blocks).
 */
export function rendersByBlocks(text) {
  return !REACHES_ACROSS_BLOCKS.test(text);
}

// `promise`, whose failure is handled where it is awaited (and nowhere else when it is
// not awaited: a render dropped after a clear()).
function settled(promise) {
  promise.catch(() => {});
  return promise;
}

/**
 * The Markdown of an answer while it streams into `bubble`: finished blocks are
 * rendered once and kept (in parts, asked for together); only the open end is rendered
 * again, once a round, so the work grows with the answer, not with its square. Once the
 * answer is complete, `finish()` renders what is left (nothing when the open end shown
 * is its complete rendering) and says which HTML the bubble shows, so the stored answer
 * can keep this bubble instead of drawing the same Markdown again.
 */
export class MarkdownStream {
  constructor(bubble) {
    this.bubble = bubble;
    this.finished = element("div", "md-finished");
    this.open = element("div", "md-open");
    bubble.append(this.finished, this.open);
    this.text = "";
    this.rendered = 0; // how much of `text` is in `finished`
    this.parts = []; // the HTML of each part of `finished`, in order
    this.running = false;
    this.idle = Promise.resolve(); // settles when the running render loop ends
    this.failed = false; // the server could not render: the text is shown as it is
    this.stopped = false;
    this.generation = 0; // counts clear()s: a render begun before one is dropped
    this.openShown = null; // the open end shown, when that is its complete rendering: {from, length, html}
  }

  /** Adds a delta. */
  push(delta) {
    this.text += delta;
    if (!this.running && !this.stopped) this.idle = this.run();
  }

  /** Forgets everything shown (the answer starts again, after a retry). */
  clear() {
    this.generation += 1;
    this.openShown = null;
    this.text = "";
    this.rendered = 0;
    this.parts = [];
    this.finished.replaceChildren();
    this.open.replaceChildren();
  }

  /** Renders nothing more (the bubble is no longer shown). */
  stop() {
    this.stopped = true;
    this.generation += 1;
  }

  /**
   * The answer is complete: renders what is not rendered yet as finished and returns
   * the HTML the bubble shows (the server's rendering of each part, joined); null when
   * the bubble does not show the server's rendering of all of it.
   */
  async finish() {
    await this.idle;
    const generation = this.generation;
    const rest = this.text.slice(this.rendered);
    if (rest !== "" && !this.failed && !this.stopped) {
      // The open end shown is its complete rendering already: no need to ask again.
      const shown = this.openShown;
      let html = shown && shown.from === this.rendered && shown.length === rest.length ? shown.html : null;
      if (html === null) {
        try {
          html = await render(rest, false);
        } catch (_) {
          return null; // the open end stays as it was shown
        }
      }
      if (generation !== this.generation) return null;
      this.addPart(html, rest.length);
    }
    if (this.failed || this.stopped || this.rendered !== this.text.length) return null;
    this.open.replaceChildren();
    return this.parts.join("");
  }

  addPart(html, length) {
    const part = element("div", "md-part");
    part.innerHTML = html; // rendered and sanitized by the server
    enhance(part);
    this.finished.append(part);
    this.parts.push(html);
    this.rendered += length;
  }

  async run() {
    this.running = true;
    try {
      let seen = -1;
      while (seen !== this.text.length && !this.stopped) {
        seen = this.text.length;
        const generation = this.generation;
        const rest = this.text.slice(this.rendered);
        // The finished blocks go in parts (a request has a size limit, and a smaller
        // part is drawn sooner), all asked for at once and drawn in order as they come;
        // the open end is rendered meanwhile and drawn after them.
        const parts = finishedParts(rest).map(([start, end]) => ({ length: end - start, html: settled(render(rest.slice(start, end), false)) }));
        const cut = parts.reduce((sum, part) => sum + part.length, 0);
        const open = settled(renderWith(rest.slice(cut), true));
        for (const part of parts) {
          const html = await part.html;
          if (generation !== this.generation) break;
          this.addPart(html, part.length);
        }
        const shown = await open;
        if (generation !== this.generation) {
          seen = -1; // cleared meanwhile: start from what came since
          continue;
        }
        this.open.innerHTML = shown.html; // rendered and sanitized by the server
        enhance(this.open);
        this.openShown = shown.complete ? { from: this.rendered, length: rest.length - cut, html: shown.html } : null;
        this.failed = false;
      }
    } catch (_) {
      this.failed = true;
      this.open.textContent = this.text.slice(this.rendered); // the server is away: the text as it is
    } finally {
      this.running = false;
    }
  }
}
