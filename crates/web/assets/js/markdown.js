// Answers as Markdown: rendered (and sanitized) by the server — the same renderer for a
// streaming answer as for a stored one, so nothing jumps when the answer ends — and
// finished here: code blocks highlighted (highlight.js, vendored under /assets/vendor/)
// with their language and a Copy button, wide tables scrolling in their own box.
import hljs from "../vendor/highlight.min.js";
import { button, element } from "./dom.js";

async function render(markdown, open) {
  const response = await fetch(`/api/markdown${open ? "?open=true" : ""}`, {
    method: "POST",
    headers: { "content-type": "text/plain; charset=utf-8" },
    body: markdown,
  });
  if (!response.ok) throw new Error(`rendering failed: ${response.status}`);
  return response.text();
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

// A long answer has code blocks by the thousand: each is highlighted when it comes
// near the view, not all at once when the answer is drawn.
const nearView = new IntersectionObserver(
  (entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const code = entry.target;
      nearView.unobserve(code);
      // highlight.js escapes the text; its output is the text in <span class="hljs-…">.
      code.innerHTML = hljs.highlight(code.textContent, { language: code.dataset.language, ignoreIllegals: true }).value;
      code.classList.add("hljs");
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
      nearView.observe(code);
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

// Where the streamed text's finished blocks end: after the last blank line outside a
// code fence that is followed by a line starting a new block (not a list item, a quote
// or an indented continuation, which may still belong to the block before). 0: none.
function finishedUpTo(text) {
  let fence = false;
  let blank = false;
  let cut = 0;
  let offset = 0;
  for (const line of text.split("\n")) {
    const next = offset + line.length + 1;
    if (/^\s{0,3}(```|~~~)/.test(line)) {
      if (!fence && blank && offset > 0) cut = offset;
      fence = !fence;
      blank = false;
    } else if (!fence) {
      if (line.trim() === "") {
        blank = true;
      } else {
        if (blank && !/^(\s|[-*+>|]|\d+[.)])/.test(line)) cut = offset;
        blank = false;
      }
    }
    offset = next;
  }
  return Math.min(cut, text.length);
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

/**
 * The Markdown of an answer while it streams into `bubble`: finished blocks are
 * rendered once and kept; only the open end is rendered again, one request at a time,
 * so the work grows with the answer, not with its square. Once the answer is complete,
 * `finish()` renders what is left and says which HTML the bubble shows, so the stored
 * answer can keep this bubble instead of drawing the same Markdown again.
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
  }

  /** Adds a delta. */
  push(delta) {
    this.text += delta;
    if (!this.running && !this.stopped) this.idle = this.run();
  }

  /** Forgets everything shown (the answer starts again, after a retry). */
  clear() {
    this.generation += 1;
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
      let html;
      try {
        html = await render(rest, false);
      } catch (_) {
        return null; // the open end stays as it was shown
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
        // At most a part's worth of finished blocks at once (a request has a size
        // limit, and a smaller part is drawn sooner); while more is finished than that,
        // the open end waits.
        const head = rest.length > PART_MAX ? rest.slice(0, rest.lastIndexOf("\n", PART_MAX) + 1) : rest;
        const cut = finishedUpTo(head);
        const behind = cut > 0 && head.length < rest.length;
        const [done, open] = await Promise.all([cut > 0 ? render(rest.slice(0, cut), false) : "", behind ? "" : render(rest.slice(cut), true)]);
        if (generation !== this.generation) {
          seen = -1; // cleared meanwhile: start from what came since
          continue;
        }
        if (cut > 0) this.addPart(done, cut);
        if (behind) seen = -1; // more to render before the open end
        this.open.innerHTML = open; // rendered and sanitized by the server
        enhance(this.open);
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
