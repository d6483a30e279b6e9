// SmallEBot's page: the entry module. It connects the controls to the modules that
// act, signs in when the server asks for it, and opens the newest conversation.
import { installSignOut, showMe, showSignIn } from "./account.js";
import { installActions, newConversation } from "./actions.js";
import { api } from "./api.js";
import { installAttachments } from "./attachments.js";
import { answerConfirmation } from "./confirmation.js";
import { onReconnect } from "./connection.js";
import { loadConversations, openConversation } from "./conversation.js";
import { $ } from "./dom.js";
import { installLayout } from "./layout.js";
import { installList } from "./list.js";
import { loadModels } from "./models.js";
import { onRecovery } from "./outage.js";
import { addressed, onHistoryMove } from "./router.js";
import { installSearch } from "./search.js";
import { showError, state } from "./session.js";
import { installShortcuts } from "./shortcuts.js";
import { installMcp } from "./mcp.js";
import { installMcpOffers } from "./mcp_offers.js";
import { installPermissions } from "./permissions.js";
import { installSkills } from "./skills.js";
import { installUsage } from "./spending.js";
import { installTheme } from "./theme.js";

// Opens the conversation the address names, or the newest (a new one when there is
// none); one the person cannot open is said so and the newest shown instead.
async function openFirst(list) {
  const target = addressed();
  if (target && list.some((c) => c.id === target.id)) {
    return openConversation(target.id, { seq: target.seq, history: "replace" });
  }
  if (list.length === 0) return newConversation();
  await openConversation(list[0].id, { history: "replace" });
  if (target) showError("That conversation does not exist or is not yours; showing your newest one.");
}

// Loads the conversations (or asks to sign in when the server has users); settles when
// done, failures shown.
function boot() {
  return loadModels()
    .then(showMe)
    .then(loadConversations)
    .then(openFirst)
    .catch((error) => {
      if (error.status === 401) {
        showSignIn();
      } else {
        showError(error.message);
      }
    });
}

function start() {
  installTheme();
  installLayout();
  installList();
  installActions();
  installAttachments();
  installSearch();
  installSignOut();
  installSkills();
  installUsage();
  installPermissions();
  installMcp();
  installMcpOffers();
  installShortcuts();
  // After a database outage, or a read that failed while the server was away.
  const reload = () => {
    if (state.conversation) return openConversation(state.conversation, { history: "none" });
    return state.draft ? loadConversations() : boot();
  };
  onRecovery(reload);
  onReconnect(reload);
  onHistoryMove((id, seq) => openConversation(id, { seq, history: "none" }));
  $("confirm-approve").addEventListener("click", () => answerConfirmation(true));
  $("confirm-conversation").addEventListener("click", () =>
    answerConfirmation(true, "conversation"),
  );
  $("confirm-always").addEventListener("click", () => answerConfirmation(true, "always"));
  $("confirm-deny").addEventListener("click", () => answerConfirmation(false));
  $("login").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await api("/api/login", { method: "POST", body: { token: $("token").value } });
      $("token").value = "";
      $("login").hidden = true;
      for (const part of ["sidebar", "chat"]) $(part).hidden = false;
      boot();
    } catch (error) {
      $("login-error").textContent = error.message;
    }
  });
  boot();
}

start();
