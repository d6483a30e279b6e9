// The skills panel: the skills the person sees (`GET /api/skills`); a click shows one
// (`GET /api/skills/{name}`) — its body through the answers' Markdown path, its files
// and allowed tools. Names, descriptions and problems go in as text.
import { api } from "./api.js";
import { $, button, element } from "./dom.js";
import { showMarkdown } from "./markdown.js";

async function loadSkills() {
  const list = $("skills-list");
  const detail = $("skill-detail");
  detail.replaceChildren();
  try {
    const { skills } = await api("/api/skills");
    list.replaceChildren(...skills.map(skillRow));
    if (skills.length === 0) list.append(element("li", "", "No skills yet."));
  } catch (error) {
    list.replaceChildren(element("li", "skill-problems", error.message));
  }
}

function skillRow(skill) {
  const li = element("li");
  const pick = button("skill", "", () => showSkill(skill.name, pick));
  pick.append(element("strong", "", skill.name), element("span", "skill-description", skill.description));
  if (skill.problems && skill.problems.length > 0) {
    pick.append(element("span", "skill-problems", skill.problems.join("\n")));
  }
  li.append(pick);
  return li;
}

async function showSkill(name, pick) {
  for (const other of document.querySelectorAll("#skills-list button")) other.removeAttribute("aria-current");
  pick.setAttribute("aria-current", "true");
  const detail = $("skill-detail");
  try {
    const skill = await api(`/api/skills/${encodeURIComponent(name)}`);
    const body = element("div", "skill-body rendered");
    detail.replaceChildren(
      element("h3", "", skill.name),
      element("p", "skill-meta", skill.description),
      body,
      listed("Files", skill.files, "skill-files"),
      listed("Allowed tools (shown only: they grant nothing)", skill.allowed_tools, "skill-tools"),
    );
    await showMarkdown(body, skill.body);
  } catch (error) {
    detail.replaceChildren(element("p", "skill-problems", error.message));
  }
}

// A heading and a list of `items` as code; nothing when there are none.
function listed(title, items, className) {
  const section = element("section", className);
  if (!items || items.length === 0) return section;
  const ul = element("ul");
  for (const item of items) {
    const li = element("li");
    li.append(element("code", "", item));
    ul.append(li);
  }
  section.append(element("h4", "", title), ul);
  return section;
}

/** Connects the Skills button to its dialog (which takes and gives back the focus). */
export function installSkills() {
  const dialog = $("skills-dialog");
  $("skills-open").addEventListener("click", () => {
    dialog.showModal();
    loadSkills();
  });
  $("skills-close").addEventListener("click", () => dialog.close());
}
