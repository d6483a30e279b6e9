// The context bar: how much of the model's window the conversation fills.
import { $ } from "./dom.js";

/**
 * How full the context window is: `{ratio, window, exact}` (`exact: false`: an upper
 * bound, counted before the server's tokenizer was ready).
 */
export function showUsage(usage) {
  const percent = Math.min(100, Math.round(usage.ratio * 100));
  const bound = usage.exact === false ? "≤ " : "";
  $("usage-bar").style.width = `${percent}%`;
  $("usage-text").textContent = `${bound}${percent}% of ${usage.window}`;
}
