// The JSON API (docs/http-api.md): one function for every call.
import { serverUnreachable } from "./connection.js";
import { outage } from "./outage.js";

/** Statuses a reverse proxy answers with while the server behind it is away. */
const GATEWAY_AWAY = new Set([502, 504]);

/**
 * Calls `path`; its JSON body, or an Error with `status` (a 503 starts the outage
 * banner; no answer at all, the connection banner, and the Error has no `status`; a
 * proxy's 502 or 504, the connection banner too).
 * `options`: `method`, `body` (sent as JSON), `keepalive` (the request outlives the page).
 */
export async function api(path, options = {}) {
  const init = { method: options.method || "GET", headers: {}, keepalive: !!options.keepalive };
  if (options.body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  const { text } = await request(path, init);
  return text ? JSON.parse(text) : null;
}

/**
 * Posts `text` as plain text to `path`; the answer's text and headers, or an Error as
 * `api` throws it.
 */
export async function apiText(path, text) {
  return request(path, {
    method: "POST",
    headers: { "content-type": "text/plain; charset=utf-8" },
    body: text,
  });
}

// Every request of the page: a network failure shows the connection banner, a 503 the
// outage banner, and any other failure is an Error with the server's words.
async function request(path, init) {
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    serverUnreachable(isRead(init));
    throw error;
  }
  const text = await response.text();
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    try {
      const body = JSON.parse(text);
      if (body && body.error) message = body.error;
    } catch {
      // Not JSON: the status says it.
    }
    const error = new Error(message);
    error.status = response.status;
    if (response.status === 503) outage(error.message);
    if (GATEWAY_AWAY.has(response.status)) serverUnreachable(isRead(init));
    throw error;
  }
  return { text, headers: response.headers };
}

// Whether a request only reads (loading it again changes nothing on the server).
function isRead(init) {
  return (init.method || "GET") === "GET";
}
