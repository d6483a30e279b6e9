// A database outage: the server answers 503. A banner says so, the actions are off
// (typing is not), and /readyz is polled until the database answers again; then the
// page is loaded again (`recover`) and only then do the banner go and the actions come
// back. What failed is in the error line of the action that failed, so the banner stays
// short; it carries it as its tooltip too.
import { $ } from "./dom.js";
import { showError, state, updateControls } from "./session.js";

const READY_POLL_MS = 2000;
const watch = { poll: null, checking: false, recover: async () => {} };

/** How the page loads itself again once the database is back. */
export function onRecovery(recover) {
  watch.recover = recover;
}

/** Shows the banner and starts polling /readyz. */
export function outage(message) {
  const banner = $("outage");
  banner.textContent = `The server cannot reach its database. Nothing you do is saved until it is back; retrying every ${READY_POLL_MS / 1000} s, and this page recovers by itself.`;
  banner.title = message;
  banner.hidden = false;
  state.outage = true;
  updateControls();
  if (watch.poll === null) watch.poll = setInterval(checkReady, READY_POLL_MS);
}

async function checkReady() {
  if (watch.checking) return;
  watch.checking = true;
  let ready = false;
  try {
    ready = (await fetch("/readyz")).ok;
  } catch (_) {
    ready = false; // the server itself is away: keep polling
  } finally {
    watch.checking = false;
  }
  if (!ready || watch.poll === null) return;
  clearInterval(watch.poll);
  watch.poll = null;
  showError("");
  try {
    await watch.recover();
  } catch (error) {
    showError(error.message);
  }
  if (watch.poll !== null) return; // a 503 again while loading: still away
  state.outage = false;
  $("outage").hidden = true;
  updateControls();
}
