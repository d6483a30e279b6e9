// SmallEBot's page: the entry module. It connects the controls to the modules that
// act, signs in when the server asks for it, and opens the newest conversation.
import { installActions, newConversation } from "./actions.js";
import { api } from "./api.js";
import { answerConfirmation } from "./confirmation.js";
import { loadConversations, openConversation } from "./conversation.js";
import { $ } from "./dom.js";
import { installLayout } from "./layout.js";
import { loadModels } from "./models.js";
import { onRecovery } from "./outage.js";
import { installSearch } from "./search.js";
import { showError, state } from "./session.js";
import { installTheme } from "./theme.js";

// Loads the conversations (or asks to sign in when the server has users); settles when
// done, failures shown.
function boot() {
  return loadModels()
    .then(loadConversations)
    .then((list) => (list.length > 0 ? openConversation(list[0].id) : newConversation()))
    .catch((error) => {
      if (error.status === 401) {
        for (const part of ["sidebar", "chat", "tasks"]) $(part).hidden = true;
        $("login").hidden = false;
        $("token").focus();
      } else {
        showError(error.message);
      }
    });
}

function start() {
  installTheme();
  installLayout();
  installActions();
  installSearch();
  onRecovery(() => (state.conversation ? openConversation(state.conversation) : boot()));
  $("confirm-approve").addEventListener("click", () => answerConfirmation(true));
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
