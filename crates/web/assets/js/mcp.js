// The MCP servers dialog (`GET /api/mcp/servers`): each server as this user sees it —
// whether they connect it with their own account (`perUser`) and where they stand
// (connected, signed in, expired, not connected) — with a Connect button for those
// signed in to with OAuth (`POST /api/mcp/servers/{name}/connect`, whose URL opens in
// a new tab and comes back to the server). A tool card whose call failed because its
// server is not connected gets the same button. Everything goes in as text.
import { api } from "./api.js";
import { $, button, element } from "./dom.js";

/** Where the user stands, for people. */
const STATES = {
  connected: "Connected",
  signed_in: "Signed in",
  expired: "Sign-in expired",
  not_connected: "Not connected",
};

/** The server named in a call's "connect first" error, if it is one. */
export function serverToConnect(result) {
  const match = /the MCP server '([A-Za-z0-9_-]+)' (?:is connected by each user|no longer accepts your sign-in)/.exec(result || "");
  return match ? match[1] : null;
}

/**
 * Starts connecting `name`: a new tab opens at the authorization server (opened
 * before the request, so it is not blocked as a pop-up). `say` shows progress.
 */
export async function connectServer(name, control, say) {
  control.disabled = true;
  const tab = window.open("", "_blank");
  try {
    const { url } = await api(`/api/mcp/servers/${encodeURIComponent(name)}/connect`, { method: "POST" });
    if (tab) {
      tab.opener = null;
      tab.location.href = url;
    } else {
      window.location.assign(url);
    }
    say(`Sign in to ${name} in the new tab, then come back: its tools join your conversations.`);
  } catch (error) {
    if (tab) tab.close();
    say(`Could not connect ${name}: ${error.message}`);
  } finally {
    control.disabled = false;
  }
}

/** A Connect button for `name` whose messages go to `say`. */
export function connectButton(name, say) {
  const control = button("mcp-connect", "Connect", () => connectServer(name, control, say), `Connect ${name}`);
  return control;
}

// One server: its name, whether it is the user's own, its state, and Connect.
function serverItem(server) {
  const item = element("li", "mcp-server");
  item.dataset.server = server.name;
  const own = server.per_user ? "your own account" : "shared";
  const tools = server.tools === 1 ? "1 tool" : `${server.tools} tools`;
  item.append(
    element("span", "mcp-name", server.name),
    element("span", `mcp-state state-${server.state}`, `${STATES[server.state] || server.state} · ${own} · ${tools}`),
  );
  if (server.sign_in) {
    item.append(connectButton(server.name, (text) => ($("mcp-status").textContent = text)));
  }
  return item;
}

async function loadServers() {
  const list = $("mcp-list");
  try {
    const { servers } = await api("/api/mcp/servers");
    list.replaceChildren(...servers.map(serverItem));
    $("mcp-empty").hidden = servers.length > 0;
  } catch (error) {
    list.replaceChildren();
    $("mcp-empty").hidden = true;
    $("mcp-status").textContent = `The MCP servers could not be read: ${error.message}`;
  }
}

/** Connects the MCP button to its dialog; the list is read again when the page gets the focus back. */
export function installMcp() {
  const dialog = $("mcp-dialog");
  $("mcp-open").addEventListener("click", () => {
    $("mcp-status").textContent = "";
    dialog.showModal();
    loadServers();
  });
  $("mcp-close").addEventListener("click", () => dialog.close());
  window.addEventListener("focus", () => {
    if (dialog.open) loadServers();
  });
}
