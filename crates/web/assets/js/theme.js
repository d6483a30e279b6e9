// Light or dark: the system's choice (prefers-color-scheme, applied by the style
// alone) until the person flips the switch; their choice is remembered in this browser.
import { $ } from "./dom.js";

const KEY = "smallebot.theme";
const system = window.matchMedia("(prefers-color-scheme: dark)");

function stored() {
  try {
    return localStorage.getItem(KEY);
  } catch (_) {
    return null; // storage refused (a private window): follow the system
  }
}

function apply() {
  const chosen = stored();
  const dark = chosen ? chosen === "dark" : system.matches;
  document.documentElement.dataset.theme = dark ? "dark" : "light";
  $("theme-toggle").setAttribute("aria-pressed", String(dark));
}

/** Applies the remembered or the system's theme and connects the switch. */
export function installTheme() {
  apply();
  system.addEventListener("change", apply);
  $("theme-toggle").addEventListener("click", () => {
    const dark = document.documentElement.dataset.theme !== "dark";
    try {
      localStorage.setItem(KEY, dark ? "dark" : "light");
    } catch (_) {
      // not remembered, but switched for this page
    }
    document.documentElement.dataset.theme = dark ? "dark" : "light";
    $("theme-toggle").setAttribute("aria-pressed", String(dark));
  });
}
