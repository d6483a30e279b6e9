// The page's panels on every screen: below 768 px the conversation list is a drawer,
// the header's actions a menu and the task list an overlay; each closes with its
// button, the backdrop or Escape.
import { $ } from "./dom.js";

const narrow = window.matchMedia("(max-width: 767px)");

function setSidebar(open) {
  document.body.classList.toggle("sidebar-open", open);
  $("sidebar-toggle").setAttribute("aria-expanded", String(open));
  if (open) $("new-conversation").focus();
}

function setMenu(open) {
  $("header-actions").classList.toggle("open", open);
  $("more").setAttribute("aria-expanded", String(open));
}

/** Shows or hides the task list. */
export function setTasks(open) {
  $("tasks").hidden = !open;
  document.body.classList.toggle("tasks-open", open && narrow.matches);
  $("tasks-toggle").setAttribute("aria-expanded", String(open));
  if (open && narrow.matches) {
    setMenu(false);
    $("tasks-close").focus();
  }
}

/** Closes the drawer once a conversation was picked in it (on a narrow screen). */
export function conversationPicked() {
  if (document.body.classList.contains("sidebar-open")) setSidebar(false);
}

/** Closes whatever overlay is open; true if one was. */
export function closeOverlays() {
  const open =
    document.body.classList.contains("sidebar-open") ||
    $("header-actions").classList.contains("open") ||
    document.body.classList.contains("tasks-open");
  setSidebar(false);
  setMenu(false);
  if (document.body.classList.contains("tasks-open")) setTasks(false);
  return open;
}

/** Connects the drawer, menu and task buttons. */
export function installLayout() {
  $("sidebar-toggle").addEventListener("click", () => setSidebar(true));
  $("sidebar-close").addEventListener("click", () => {
    setSidebar(false);
    $("sidebar-toggle").focus();
  });
  $("scrim").addEventListener("click", closeOverlays);
  $("more").addEventListener("click", () => setMenu(!$("header-actions").classList.contains("open")));
  $("tasks-toggle").addEventListener("click", () => setTasks($("tasks").hidden));
  $("tasks-close").addEventListener("click", () => {
    setTasks(false);
    $("tasks-toggle").focus();
  });
  document.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && closeOverlays()) event.preventDefault();
  });
  // The menu closes when something outside it is clicked.
  document.addEventListener("click", (event) => {
    if (!event.target.closest("#header-actions, #more")) setMenu(false);
  });
  narrow.addEventListener("change", () => closeOverlays());
}
