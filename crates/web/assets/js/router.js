// One address per conversation: `/c/{id}`, and `/c/{id}#{seq}` for one of its rows.
// Back and Forward move between the conversations opened; a reload opens the same one.

/** The conversation and row the address names: `{id, seq}`, or null for `/`. */
export function addressed() {
  const match = /^\/c\/([^/]+)$/.exec(location.pathname);
  if (!match) return null;
  const seq = /^#(\d+)$/.exec(location.hash);
  return { id: decodeURIComponent(match[1]), seq: seq ? Number(seq[1]) : null };
}

/** The address of conversation `id` (and its row `seq`). */
export function addressOf(id, seq = null) {
  return `/c/${encodeURIComponent(id)}${seq === null ? "" : `#${seq}`}`;
}

/**
 * Puts conversation `id` (row `seq`) in the address bar: as a new history entry
 * (`push`), in place of the current one (`replace`), or not at all (`none`, when the
 * history itself moved).
 */
export function remember(id, seq, how) {
  const url = addressOf(id, seq);
  if (how === "none" || location.pathname + location.hash === url) return;
  if (how === "replace") history.replaceState({ id }, "", url);
  else history.pushState({ id }, "", url);
}

/** Calls `open(id, seq)` when Back or Forward moves to another address. */
export function onHistoryMove(open) {
  window.addEventListener("popstate", () => {
    const target = addressed();
    if (target) open(target.id, target.seq);
  });
}
