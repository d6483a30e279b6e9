// MCP resources and prompts in the message box. `@` at the start of a word offers the
// resources and resource templates of the person's servers (`GET /api/mcp/resources`,
// filtered as they type); choosing one reads it (`POST /api/mcp/resources/read`, a
// template's arguments asked for first) and adds its parts to the files waiting to be
// sent, as if uploaded. `/` at the start of the message offers the prompts (`GET
// /api/mcp/prompts`); choosing one asks for its arguments (required ones marked) and
// puts its text (`POST /api/mcp/prompts/{server}/{name}`) in the message box. Arrows,
// Enter or Tab, Escape, and the mouse. Everything a server wrote goes in as text.
import { api } from "./api.js";
import { addFiles } from "./attachments.js";
import { $, button, element } from "./dom.js";
import { showError } from "./session.js";

const menu = { open: false, kind: null, start: 0, items: [], active: 0, asked: 0 };

/**
 * What the text before the caret asks for: `{kind: "resource", start, query}` for an
 * `@` word, `{kind: "prompt", start: 0, query}` for a first word starting with `/`.
 */
export function trigger(text, caret) {
  const before = text.slice(0, caret);
  const slash = /^\/(\S*)$/.exec(before);
  if (slash) return { kind: "prompt", start: 0, query: slash[1] };
  const at = /(^|\s)@(\S*)$/.exec(before);
  if (at) return { kind: "resource", start: caret - at[2].length - 1, query: at[2] };
  return null;
}

// The rows of the menu: each with its key line, what it is, and the item itself.
function rows(kind, lists) {
  if (kind === "prompt") {
    return lists.prompts.map((p) => ({ key: `/${p.server}:${p.name}`, about: p.description || "", item: p }));
  }
  const resources = lists.resources.map((r) => ({
    key: `${r.server}:${r.uri}`,
    about: [r.name, r.description].filter(Boolean).join(" — "),
    item: r,
  }));
  const templates = lists.templates.map((t) => ({
    key: `${t.server}:${t.uri_template}`,
    about: [t.name, t.description].filter(Boolean).join(" — "),
    item: t,
    template: true,
  }));
  return resources.concat(templates);
}

// The rows whose key or description contains `query` (any case).
function matching(all, query) {
  const wanted = query.toLowerCase();
  return all.filter((row) => `${row.key} ${row.about}`.toLowerCase().includes(wanted));
}

function close() {
  menu.open = false;
  menu.asked += 1; // a list still loading is not shown
  $("mcp-menu").hidden = true;
  $("input").removeAttribute("aria-activedescendant");
}

// Draws the menu's rows, the active one marked.
function draw() {
  const box = $("mcp-menu");
  box.replaceChildren(
    ...menu.items.map((row, index) => {
      const option = element("div", "mcp-option");
      option.id = `mcp-option-${index}`;
      option.setAttribute("role", "option");
      option.setAttribute("aria-selected", String(index === menu.active));
      option.append(element("span", "mcp-option-key", row.key));
      if (row.about) option.append(element("span", "mcp-option-about", row.about));
      option.addEventListener("mousedown", (event) => event.preventDefault()); // keeps the focus
      option.addEventListener("click", () => choose(index));
      return option;
    }),
  );
  box.setAttribute("aria-label", menu.kind === "prompt" ? "MCP prompts" : "MCP resources");
  box.hidden = menu.items.length === 0;
  const input = $("input");
  if (menu.items.length === 0) {
    input.removeAttribute("aria-activedescendant");
    return;
  }
  input.setAttribute("aria-activedescendant", `mcp-option-${menu.active}`);
  box.children[menu.active].scrollIntoView({ block: "nearest" });
}

// Reads the lists for `kind` and shows the rows matching `found` (unless the menu
// was closed or asked again meanwhile).
async function show(found) {
  const asked = ++menu.asked;
  let lists;
  try {
    lists = await api(found.kind === "prompt" ? "/api/mcp/prompts" : "/api/mcp/resources");
  } catch {
    return; // no menu; typing goes on
  }
  if (asked !== menu.asked) return;
  menu.open = true;
  menu.kind = found.kind;
  menu.start = found.start;
  menu.all = rows(found.kind, lists);
  menu.items = matching(menu.all, found.query);
  menu.active = 0;
  draw();
}

// Follows the text: opens, filters or closes the menu.
function follow() {
  const input = $("input");
  const found = trigger(input.value, input.selectionStart);
  if (!found) {
    close();
    return;
  }
  if (menu.open && menu.kind === found.kind && menu.start === found.start) {
    menu.items = matching(menu.all, found.query);
    menu.active = 0;
    draw();
    return;
  }
  show(found);
}

// Takes the typed `@…` or `/…` out of the message box.
function takeTyped() {
  const input = $("input");
  const end = input.selectionStart;
  input.value = input.value.slice(0, menu.start) + input.value.slice(end);
  input.setSelectionRange(menu.start, menu.start);
}

function choose(index) {
  const row = menu.items[index];
  if (!row) return;
  const kind = menu.kind;
  takeTyped();
  close();
  const item = row.item;
  if (kind === "prompt") {
    if (item.arguments.length === 0) usePrompt(item, {});
    else askArguments(`/${item.server}:${item.name}`, item.description, item.arguments, "Use prompt", (values) => usePrompt(item, values));
  } else if (row.template) {
    askArguments(`${item.server}:${item.uri_template}`, item.description, item.arguments, "Attach", (values) =>
      attach(item.server, item.uri_template, values),
    );
  } else {
    attach(item.server, item.uri, {});
  }
}

/** Decodes base64 into bytes. */
function bytesOf(base64) {
  const binary = atob(base64);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i += 1) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

// Reads the resource and adds its parts to the files waiting to be sent.
async function attach(server, uri, values) {
  try {
    const read = await api("/api/mcp/resources/read", { method: "POST", body: { server, uri, arguments: values } });
    addFiles(read.files.map((file) => new File([bytesOf(file.base64)], file.name)));
    showError("");
  } catch (error) {
    showError(`Not attached: ${error.message}`);
  }
  $("input").focus();
}

// Gets the prompt's text and puts it in the message box, before what is there.
async function usePrompt(prompt, values) {
  const path = `/api/mcp/prompts/${encodeURIComponent(prompt.server)}/${encodeURIComponent(prompt.name)}`;
  const input = $("input");
  try {
    const { text } = await api(path, { method: "POST", body: { arguments: values } });
    const rest = input.value.trim();
    input.value = rest ? `${text}\n\n${rest}` : text;
    input.setSelectionRange(input.value.length, input.value.length);
    showError("");
  } catch (error) {
    showError(`The prompt could not be used: ${error.message}`);
  }
  input.focus();
}

// The small form asking for `fields` (`{name, description, required}`) of `title`;
// `done(values)` when submitted, nothing when cancelled.
function askArguments(title, about, fields, action, done) {
  const form = $("mcp-args");
  const heading = element("div", "mcp-args-title", title);
  const parts = [heading];
  if (about) parts.push(element("div", "mcp-args-about", about));
  const inputs = fields.map((field, index) => {
    const label = element("label", "mcp-arg");
    const name = element("span", "mcp-arg-name", field.name);
    if (field.required) name.append(element("span", "mcp-required", " (required)"));
    const box = element("input");
    box.id = `mcp-arg-${index}`;
    box.required = field.required;
    box.dataset.name = field.name;
    if (field.description) box.placeholder = field.description;
    label.append(name, box);
    parts.push(label);
    return box;
  });
  const buttons = element("div", "mcp-args-buttons");
  const cancel = button("", "Cancel", () => finish(null));
  const submit = element("button", "primary", action);
  submit.type = "submit";
  buttons.append(cancel, submit);
  parts.push(buttons);
  form.replaceChildren(...parts);
  form.hidden = false;
  function finish(values) {
    form.hidden = true;
    form.replaceChildren();
    form.onsubmit = null;
    form.onkeydown = null;
    if (values) done(values);
    else $("input").focus();
  }
  form.onsubmit = (event) => {
    event.preventDefault();
    const values = {};
    for (const box of inputs) if (box.value.trim()) values[box.dataset.name] = box.value.trim();
    finish(values);
  };
  form.onkeydown = (event) => {
    if (event.key === "Escape") {
      event.preventDefault();
      event.stopPropagation();
      finish(null);
    }
  };
  (inputs[0] || submit).focus();
}

// Arrows move, Enter or Tab chooses, Escape closes; before the message box's own keys.
function onKey(event) {
  if (!menu.open || menu.items.length === 0 || event.target !== $("input")) return;
  const moves = { ArrowDown: 1, ArrowUp: -1 };
  if (event.key in moves) {
    menu.active = (menu.active + moves[event.key] + menu.items.length) % menu.items.length;
    draw();
  } else if ((event.key === "Enter" && !event.shiftKey && !event.isComposing) || event.key === "Tab") {
    choose(menu.active);
  } else if (event.key === "Escape") {
    close();
  } else {
    return;
  }
  event.preventDefault();
  event.stopPropagation();
}

/** Connects `@` and `/` in the message box to the menu. */
export function installMcpOffers() {
  const input = $("input");
  input.setAttribute("aria-autocomplete", "list");
  input.setAttribute("aria-controls", "mcp-menu");
  input.addEventListener("input", follow);
  input.addEventListener("click", follow);
  input.addEventListener("blur", () => {
    if (menu.open) close();
  });
  $("composer").addEventListener("keydown", onKey, true);
}
