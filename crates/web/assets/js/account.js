// Who is signed in (`GET /api/me`), shown at the foot of the sidebar, and signing out
// (`POST /api/logout`), which brings the sign-in card back.
import { api } from "./api.js";
import { $ } from "./dom.js";
import { closeStream } from "./stream.js";
import { showError, state } from "./session.js";

/** Hides the app and shows the sign-in card. */
export function showSignIn() {
  for (const part of ["sidebar", "chat", "tasks"]) $(part).hidden = true;
  $("login").hidden = false;
  $("token").focus();
}

/**
 * Shows the signed-in user's name (as text), and the Sign out button where users sign
 * in (not on loopback without users, where there is nothing to sign out of).
 */
export async function showMe() {
  const me = await api("/api/me");
  $("me").textContent = me.name;
  $("me").title = me.sign_in ? `Signed in as ${me.name}` : `The local user, ${me.name}`;
  $("sign-out").hidden = !me.sign_in;
  state.admin = me.admin === true;
}

/** Connects Sign out: the cookie cleared, the page emptied, the sign-in card shown. */
export function installSignOut() {
  $("sign-out").addEventListener("click", async () => {
    try {
      await api("/api/logout", { method: "POST" });
    } catch (error) {
      showError(`Not signed out: ${error.message}`);
      return;
    }
    closeStream();
    state.conversation = null;
    state.draft = false;
    $("me").textContent = "";
    $("sign-out").hidden = true;
    $("messages").replaceChildren();
    $("conversations").replaceChildren();
    history.replaceState(null, "", "/");
    showSignIn();
  });
}
