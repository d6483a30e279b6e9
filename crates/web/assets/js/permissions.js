// The Permissions dialog (`GET /api/permissions`): what the person allowed beyond one
// call when asked — "always in this conversation" or "always" — each with the rules it
// added, when, the call that prompted it, and a Revoke button
// (`DELETE /api/permissions/{id}`). Everything goes in as text.
import { api } from "./api.js";
import { $, button, element } from "./dom.js";
import { state } from "./session.js";

/** How far a grant reaches, for people. */
function reachText(grant) {
  if (grant.scope === "always") return "Always";
  if (grant.conversation_id === state.conversation) return "In this conversation";
  return `In conversation ${String(grant.conversation_id).slice(0, 8)}`;
}

/** When a grant was given, in the person's own time. */
function whenText(grant) {
  const at = new Date(grant.granted_at);
  return Number.isNaN(at.getTime()) ? grant.granted_at : at.toLocaleString();
}

// One grant: its rules, reach, time and call, and its Revoke button.
function grantItem(grant) {
  const item = element("li", "grant");
  item.dataset.grantId = String(grant.id);
  const rules = grant.rules.join(", ");
  item.append(
    element("code", "grant-rules", rules),
    element("span", "grant-meta", `${reachText(grant)} · ${whenText(grant)}`),
    element("span", "grant-call", grant.call),
  );
  const revoke = button("grant-revoke", "Revoke", () => revokeGrant(grant.id, revoke), `Revoke ${rules}`);
  item.append(revoke);
  return item;
}

// Revokes grant `id`, lists the grants again and keeps the focus in the list.
async function revokeGrant(id, control) {
  control.disabled = true;
  const status = $("permissions-status");
  try {
    await api(`/api/permissions/${encodeURIComponent(id)}`, { method: "DELETE" });
    status.textContent = "Revoked: calls like it are asked about again.";
  } catch (error) {
    status.textContent = `Not revoked: ${error.message}`;
    control.disabled = false;
    return;
  }
  await loadGrants();
  const next = document.querySelector("#permissions-list .grant-revoke") || $("permissions-close");
  next.focus();
}

async function loadGrants() {
  const list = $("permissions-list");
  try {
    const { grants } = await api("/api/permissions");
    list.replaceChildren(...grants.map(grantItem));
    $("permissions-empty").hidden = grants.length > 0;
  } catch (error) {
    list.replaceChildren();
    $("permissions-empty").hidden = true;
    $("permissions-status").textContent = `The permissions could not be read: ${error.message}`;
  }
}

/** Connects the Permissions button to its dialog (which takes and gives back the focus). */
export function installPermissions() {
  const dialog = $("permissions-dialog");
  $("permissions-open").addEventListener("click", () => {
    $("permissions-status").textContent = "";
    dialog.showModal();
    loadGrants();
  });
  $("permissions-close").addEventListener("click", () => dialog.close());
}
