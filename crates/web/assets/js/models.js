// The model picker: which model of models.json the open conversation runs on.
import { api } from "./api.js";
import { $, element } from "./dom.js";

// Fills the picker from `GET /api/models`; hidden when there is nothing to choose.
export async function loadModels() {
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
export function showModel(id) {
  if (id) $("model").value = id;
}
