// The JSON API (docs/http-api.md): one function for every call.
import { serverUnreachable } from "./connection.js";
import { outage } from "./outage.js";

/**
 * Calls `path`; its JSON body, or an Error with `status` (a 503 starts the outage
 * banner; no answer at all, the connection banner, and the Error has no `status`).
 */
export async function api(path, options = {}) {
  const init = { method: options.method || "GET", headers: {} };
  if (options.body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(options.body);
  }
  let response;
  try {
    response = await fetch(path, init);
  } catch (error) {
    serverUnreachable();
    throw error;
  }
  const text = await response.text();
  const body = text ? JSON.parse(text) : null;
  if (!response.ok) {
    const error = new Error((body && body.error) || `${response.status} ${response.statusText}`);
    error.status = response.status;
    if (response.status === 503) outage(error.message);
    throw error;
  }
  return body;
}
