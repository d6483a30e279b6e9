// Small DOM helpers. Everything a model, a tool or a person wrote goes in as text
// (textContent); the only HTML inserted is Markdown the server rendered and sanitized.

/** The element with id `id`. */
export const $ = (id) => document.getElementById(id);

/** A new `tag` element with `className` and, if given, `text` as its text. */
export function element(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** A `type=button` button labelled `text` that calls `onClick`. */
export function button(className, text, onClick, label) {
  const node = element("button", className, text);
  node.type = "button";
  if (label) node.setAttribute("aria-label", label);
  if (onClick) node.addEventListener("click", onClick);
  return node;
}

/** Scrolls the timeline to its end. */
export function scrollDown() {
  const box = $("messages");
  box.scrollTop = box.scrollHeight;
}
