// The model picker: which model of models.json the open conversation runs on.
// Loaded before app.js; uses its helpers ($, api, element, state, refresh, showError)
// only when called, after both scripts have run.
"use strict";

// Fills the picker from `GET /api/models`; hidden when there is nothing to choose.
async function loadModels() {
  const answer = await api("/api/models");
  const picker = $("model");
  picker.replaceChildren(
    ...answer.models.map((model) => {
      const option = element("option", "", `${model.id} (${model.model})`);
      option.value = model.id;
      return option;
    }),
  );
  picker.hidden = answer.models.length < 2;
}

// Shows `id` (the timeline's `model`) as the open conversation's choice.
function showModel(id) {
  if (id) $("model").value = id;
}

// Stores the picked model for the open conversation; its next turn runs on it.
async function chooseModel() {
  const id = state.conversation;
  if (!id) return;
  try {
    const chosen = await api(`/api/conversations/${id}/model`, {
      method: "PUT",
      body: { model: $("model").value },
    });
    showModel(chosen.model);
    await refresh(); // the context bar follows the model's window
  } catch (error) {
    showError(error.message);
  }
}
