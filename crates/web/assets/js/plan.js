// The task drawer: the plan rendered from its fields (docs/protocol.md, "The plan").
import { $, element } from "./dom.js";

const TASK_MARKERS = { done: "✓", in_progress: "→", blocked: "!", pending: " " };

// The task drawer from a plan (docs/protocol.md, `Plan`): progress, then each task with
// its status, dependencies and, once it has any, its notes, tools and files. `error`:
// why the task list could not be read.
export function renderPlan(plan, error) {
  const box = $("plan");
  box.replaceChildren();
  if (error) {
    box.append(element("p", "plan-error", error));
    return;
  }
  const tasks = (plan && plan.tasks) || [];
  if (tasks.length === 0) {
    box.append(element("p", "", "No tasks yet."));
    return;
  }
  const done = tasks.filter((task) => task.status === "done").length;
  const percent = ((done * 100) / tasks.length).toFixed(1);
  box.append(element("p", "progress", `Progress: ${done}/${tasks.length} (${percent}%)`));
  const list = element("ol");
  for (const task of tasks) list.append(planTask(task));
  box.append(list);
}

function planTask(task) {
  const item = element("li", "task");
  item.dataset.taskId = task.id;
  item.dataset.status = task.status;
  const marker = TASK_MARKERS[task.status] || "?";
  item.append(element("span", "marker", `[${marker}]`), element("span", "task-id", `${task.id}: `));
  const title = element("span", "task-title", task.title);
  if (task.description) title.title = task.description;
  item.append(title);
  if (task.depends_on.length > 0) {
    item.append(element("span", "depends", ` (depends on: ${task.depends_on.join(", ")})`));
  }
  if (task.notes || task.tools.length > 0 || task.files.length > 0) {
    const tools = task.tools.map((tool) => `${tool.name} (${tool.calls} ${tool.calls === 1 ? "call" : "calls"})`);
    const notes = task.notes.split("\n").map((line) => line.trim()).filter((line) => line).join(" ");
    item.append(
      element("div", "detail notes", `Notes: ${notes || "-"}`),
      element("div", "detail tools", `Tools: ${tools.join(", ") || "-"}`),
      element("div", "detail files", `Files: ${task.files.join(", ") || "-"}`),
    );
  }
  return item;
}
