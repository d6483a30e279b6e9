// The connection to the server, said in a banner (role=status): "Reconnecting…" while
// the open conversation's event stream is being opened again, "Server unreachable —
// retrying" while the server does not answer at all (the stream, or any call, failed
// and /healthz does not answer either). It goes once the stream is open again and the
// server answers.
//
// The browser's EventSource reconnects by itself and sends the id of the last event it
// received, so the server replays what the page missed — or, when it no longer keeps
// those events, says `reload` and the page loads the stored state again (stream.js).
// A stream the browser gave up on (an answer that is not an event stream, such as a
// proxy's 502 while the server restarts) is opened again here, with the stored state,
// once the server answers. A read that failed meanwhile (no answer, or a proxy's 502 or
// 504) left the page short of what it asked for: once the server answers, the page
// loads the stored state again (`onReconnect`), which also clears the read's error.
import { $ } from "./dom.js";
import { showError } from "./session.js";

const PROBE_MS = 2000;
const link = {
  stream: "none", // the event stream: none wanted, "open", "lost" (the browser retries), "closed" (it gave up)
  unreachable: false, // the last try to reach the server failed
  resume: null, // opens a "closed" stream again (with the stored state)
  timer: 0, // the next probe of /healthz
  probing: false, // a probe is on its way
  reread: false, // a read failed while the server was away: load the page again once it answers
  recover: async () => {}, // loads the open conversation (or the list) again
};

/** How the page loads what it shows again after a read failed while the server was away. */
export function onReconnect(recover) {
  link.recover = recover;
}

// Shows or hides the banner; while it shows, /healthz is asked every PROBE_MS.
function show() {
  const banner = $("connection");
  const down = link.stream === "lost" || link.stream === "closed" || link.unreachable;
  banner.hidden = !down;
  if (down) banner.textContent = link.unreachable ? "Server unreachable — retrying" : "Reconnecting…";
  if (!down) {
    clearTimeout(link.timer);
    link.timer = 0;
  } else if (!link.timer && !link.probing) {
    link.timer = setTimeout(probe, PROBE_MS);
  }
}

// Asks /healthz whether the server answers; a stream the browser gave up on is opened
// again once it does.
async function probe() {
  clearTimeout(link.timer);
  link.timer = 0;
  link.probing = true;
  let answers = false;
  try {
    answers = (await fetch("/healthz", { cache: "no-store" })).ok;
  } catch (_) {
    answers = false; // not reachable: asked again
  }
  link.probing = false;
  link.unreachable = !answers;
  if (answers && link.reread) {
    // Loading again opens a new event stream too: a closed one needs no resuming.
    link.reread = false;
    link.resume = null;
    showError("");
    Promise.resolve(link.recover()).catch((error) => showError(error.message));
  } else if (answers && link.stream === "closed" && link.resume) {
    const resume = link.resume;
    link.resume = null;
    resume();
  }
  show();
}

/** The event stream is open: nothing was lost, or what was is replayed. */
export function streamOpen() {
  link.stream = "open";
  link.unreachable = false;
  link.resume = null;
  show();
}

/**
 * The event stream broke. `resume`: the browser gave up on it; called (once) when the
 * server answers again, to open it anew. Without it the browser reconnects by itself.
 */
export function streamLost(resume) {
  link.stream = resume ? "closed" : "lost";
  link.resume = resume || null;
  show();
  if (!link.probing) probe(); // at once: unreachable, or only reconnecting
}

/** No event stream is wanted (none is open, or another is about to be). */
export function streamClosed() {
  link.stream = "none";
  link.resume = null;
  show();
}

/**
 * A call got no answer from the server (none at all, or a proxy's saying it is away):
 * the banner stays until it answers. `read`: the call was a read, so what the page
 * shows is loaded again then.
 */
export function serverUnreachable(read) {
  link.unreachable = true;
  if (read) link.reread = true;
  show();
}
