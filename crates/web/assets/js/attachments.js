// Files given with a message: picked with the attach button, dropped on the composer,
// pasted, or an MCP resource chosen after `@` (mcp_offers.js); shown as chips until sent, uploaded (with progress) when the message is
// sent, and drawn in the timeline as thumbnails (images) and chips (other files).
// Names are user-provided: they go in as text and attributes only.
import { api } from "./api.js";
import { $, button, element } from "./dom.js";
import { outage } from "./outage.js";

let pending = []; // File objects waiting to be sent

/** A byte count for people: `812 B`, `12 KB`, `3.4 MB`. */
export function humanSize(bytes) {
  if (bytes < 1024) return `${bytes} B`;
  const units = ["KB", "MB", "GB"];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value < 10 ? value.toFixed(1) : Math.round(value)} ${units[unit]}`;
}

/** The files waiting to be sent with the next message. */
export function pendingFiles() {
  return pending.slice();
}

/** Forgets the files waiting to be sent (once they are). */
export function clearPending() {
  pending = [];
  showPending();
}

/** Adds `files` (File objects) to those waiting to be sent; whether there were any. */
export function addFiles(files) {
  const list = Array.from(files || []);
  if (list.length === 0) return false;
  pending = pending.concat(list);
  showPending();
  return true;
}

// A chip naming a file and its size (`tag`: a span, or a link to the stored file).
function fileChip(tag, name, size) {
  const chip = element(tag, "file-chip");
  chip.append(element("span", "file-name", name), element("span", "file-size", humanSize(size)));
  return chip;
}

// Draws the chips of the waiting files, each with its remove button.
function showPending(progress) {
  const box = $("pending-files");
  box.replaceChildren();
  pending.forEach((file, index) => {
    const chip = fileChip("span", file.name || "pasted image", file.size);
    const remove = button("remove-file", "×", () => {
      pending.splice(index, 1);
      showPending();
    }, `Remove ${file.name || "pasted image"}`);
    chip.append(remove);
    box.append(chip);
  });
  if (progress !== undefined) {
    const bar = element("progress", "upload-progress");
    bar.max = 100;
    bar.value = progress;
    bar.setAttribute("aria-label", "Uploading");
    box.append(bar);
  }
  box.hidden = pending.length === 0;
}

/**
 * Uploads the waiting files into conversation `id` (one multipart request, its
 * progress shown under the chips); the stored attachments' ids, or an Error with
 * `status` (413 over the limits: nothing was stored).
 */
export function uploadPending(id) {
  const form = new FormData();
  for (const file of pending) form.append("file", file, file.name || "pasted-image.png");
  return new Promise((resolve, reject) => {
    const request = new XMLHttpRequest();
    request.open("POST", `/api/conversations/${encodeURIComponent(id)}/attachments`);
    request.upload.addEventListener("progress", (event) => {
      if (event.lengthComputable) showPending(Math.round((event.loaded / event.total) * 100));
    });
    request.addEventListener("load", () => {
      showPending();
      let body = null;
      try {
        body = request.responseText ? JSON.parse(request.responseText) : null;
      } catch {
        body = null;
      }
      if (request.status === 201 && body) {
        resolve(body.attachments.map((a) => a.id));
        return;
      }
      const error = new Error((body && body.error) || `${request.status} ${request.statusText}`);
      error.status = request.status;
      if (request.status === 503) outage(error.message);
      reject(error);
    });
    request.addEventListener("error", () => {
      showPending();
      reject(new Error("the upload did not reach the server"));
    });
    showPending(0);
    request.send(form);
  });
}

/**
 * Creates a conversation with its first message `text` carrying the waiting files:
 * created empty, its model chosen, the files uploaded, the message sent; deleted again
 * when any step fails, so no empty conversation stays. `{id, turn_id}` as
 * `POST /api/conversations` answers.
 */
export async function createWithFiles(text, model) {
  const created = await api("/api/conversations", { method: "POST" });
  const at = (path) => `/api/conversations/${encodeURIComponent(created.id)}${path}`;
  try {
    if (model) await api(at("/model"), { method: "PUT", body: { model } });
    const attachments = await uploadPending(created.id);
    const started = await api(at("/messages"), { method: "POST", body: { text, attachments } });
    return { ...created, turn_id: started.turn_id };
  } catch (error) {
    await api(at(""), { method: "DELETE" }).catch(() => {});
    throw error;
  }
}

/** The files of a user message `row`: thumbnails that open the image, chips for the rest. */
export function attachmentList(row) {
  const box = element("div", "attachments");
  for (const file of row.attachments || []) {
    const url = `/api/conversations/${encodeURIComponent(row.conversation_id)}/attachments/${encodeURIComponent(file.id)}`;
    const link = file.kind === "image" ? element("a", "thumb") : fileChip("a", file.name, file.size);
    link.href = url;
    link.target = "_blank";
    link.rel = "noopener";
    if (file.kind === "image") {
      const image = element("img");
      image.src = url;
      image.alt = file.name;
      image.loading = "lazy";
      link.title = file.width ? `${file.name} ${file.width}×${file.height}` : file.name;
      link.append(image);
    }
    box.append(link);
  }
  return box;
}

/** The chips of files being sent, in the bubble drawn before the message is stored. */
export function sendingList(files) {
  const box = element("div", "attachments");
  for (const file of files) box.append(fileChip("span", file.name || "pasted image", file.size));
  return box;
}

/** Connects the attach button, drops on the composer and pasted files. */
export function installAttachments() {
  const input = $("attach-input");
  $("attach").addEventListener("click", () => input.click());
  input.addEventListener("change", () => {
    addFiles(input.files);
    input.value = "";
  });
  const composer = $("composer");
  composer.addEventListener("dragover", (event) => {
    if (!event.dataTransfer || !Array.from(event.dataTransfer.types).includes("Files")) return;
    event.preventDefault();
    composer.classList.add("dropping");
  });
  composer.addEventListener("dragleave", () => composer.classList.remove("dropping"));
  composer.addEventListener("drop", (event) => {
    composer.classList.remove("dropping");
    if (!event.dataTransfer || event.dataTransfer.files.length === 0) return;
    event.preventDefault();
    if ($("input").disabled) return;
    addFiles(event.dataTransfer.files);
  });
  $("input").addEventListener("paste", (event) => {
    if (event.clipboardData && addFiles(event.clipboardData.files)) event.preventDefault();
  });
}
