// What model requests cost (`GET /api/usage`): the open conversation's cost in the
// header, and the Usage dialog — the person's own usage by day and by model; an
// admin's also everyone's by user. Keys and amounts go in as text.
import { api } from "./api.js";
import { $, element } from "./dom.js";
import { state } from "./session.js";

/** An amount for people: cents for amounts of a unit or more, two digits below. */
function amountText(amount) {
  if (amount === 0) return "0";
  if (amount >= 1) return amount.toFixed(2);
  if (amount >= 0.01) return amount.toFixed(3);
  return amount.toPrecision(2);
}

/** A group's cost: each currency's amount, and how many requests had no price. */
export function costText(group) {
  const parts = Object.entries(group.cost).map(([currency, cost]) => `${amountText(cost.amount)} ${currency}`);
  if (group.unpriced_requests > 0) parts.push(`${group.unpriced_requests} unpriced`);
  return parts.length > 0 ? parts.join(" + ") : "–";
}

/** Shows what conversation `id` cost so far in the header (hidden before any request). */
export async function showCost(id) {
  const cost = $("cost");
  try {
    const report = await api(`/api/usage?conversation=${encodeURIComponent(id)}`);
    if (state.conversation !== id) return;
    const total = report.total;
    cost.hidden = total.requests === 0;
    cost.textContent = costText(total);
    cost.title =
      `What this conversation cost: ${total.requests} model requests, ` +
      `${total.prompt_tokens} prompt and ${total.completion_tokens} completion tokens`;
  } catch (error) {
    cost.hidden = true;
    cost.title = `The cost is not known: ${error.message}`;
  }
}

/** Hides the cost (no conversation open). */
export function hideCost() {
  $("cost").hidden = true;
}

// A table of a report's groups and total under a heading.
function usageTable(heading, keyName, report) {
  const section = element("section", "usage-section");
  section.append(element("h3", "", heading));
  if (report.total.requests === 0) {
    section.append(element("p", "usage-none", "No model requests yet."));
    return section;
  }
  const table = element("table", "usage-table");
  const head = element("tr");
  for (const name of [keyName, "Requests", "Prompt", "Completion", "Cost"]) head.append(element("th", "", name));
  table.append(head);
  for (const group of [...report.groups, report.total]) {
    const row = element("tr", group === report.total ? "usage-total" : "");
    const key = group === report.total ? "Total" : group.key;
    for (const cell of [key, group.requests, group.prompt_tokens, group.completion_tokens, costText(group)]) {
      row.append(element("td", "", String(cell)));
    }
    table.append(row);
  }
  section.append(table);
  return section;
}

async function loadUsage() {
  const tables = $("usage-tables");
  $("usage-scope").textContent = state.admin ? "Everyone's model requests (you are an admin)." : "Your model requests.";
  try {
    const groupings = [["day", "By day", "Day"], ["model", "By model", "Model"]];
    if (state.admin) groupings.push(["user", "By user", "User"]);
    const reports = await Promise.all(groupings.map(([by]) => api(`/api/usage?by=${by}`)));
    tables.replaceChildren(...reports.map((report, i) => usageTable(groupings[i][1], groupings[i][2], report)));
  } catch (error) {
    tables.replaceChildren(element("p", "usage-none", error.message));
  }
}

/** Connects the Usage button to its dialog (which takes and gives back the focus). */
export function installUsage() {
  const dialog = $("usage-dialog");
  $("usage-open").addEventListener("click", () => {
    dialog.showModal();
    loadUsage();
  });
  $("usage-close").addEventListener("click", () => dialog.close());
}
