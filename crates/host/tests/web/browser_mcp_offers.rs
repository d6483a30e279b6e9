//! MCP resources and prompts in the message box, in headless Chromium against the
//! testkit's MCP server behind a real `McpUsers` and the testkit model: `@` offers the
//! resources and templates (filtered as typed); choosing one with the keyboard attaches
//! it as a chip and its contents reach the model with the message; a template asks for
//! its argument; Escape closes the menu. `/` offers the prompts; one chosen with the
//! mouse asks for its arguments (the required one marked), puts its text in the message
//! box, and that text reaches the model. Screenshots desktop and phone, light and dark.

use crate::browser_support;
use crate::mcp_support::server_with_mcp;

use browser_support::{Chromium, click, eval, open_page, press, screenshots_in_each_scheme};
use browser_support::{set_viewport, type_into, wait_for};
use serde_json::json;
use smallebot_core::rules::attachment::AttachmentLimits;
use smallebot_testkit::ScriptedResponse;
use smallebot_testkit::mcp::README_TEXT;

const MENU_KEYS: &str =
    "[...document.querySelectorAll('#mcp-menu .mcp-option-key')].map(e => e.textContent)";
const CHIPS: &str =
    "[...document.querySelectorAll('#pending-files .file-name')].map(e => e.textContent)";

#[tokio::test]
async fn resources_attach_after_at_and_prompts_fill_the_box_after_slash() {
    let Some(browser) = Chromium::start("mcp resources and prompts").await else {
        return;
    };
    let (s, _mcp) = server_with_mcp(AttachmentLimits::default()).await;
    let page = open_page(&s, &browser).await;

    // `@` offers what matches as typed; arrows and Enter choose.
    type_into(&page, "#input", "see @note").await;
    wait_for(&page, "!document.getElementById('mcp-menu').hidden").await;
    assert_eq!(
        eval(&page, MENU_KEYS).await,
        json!(["t:note://readme", "t:note://{name}"])
    );
    screenshots_in_each_scheme(&page, "mcp-resources").await;
    set_viewport(&page, 1280, 800).await;
    type_into(&page, "#input", "://rea").await;
    wait_for(
        &page,
        "document.querySelectorAll('#mcp-menu .mcp-option').length === 1",
    )
    .await;
    press(&page, "#input", "Enter").await;
    wait_for(&page, &format!("{CHIPS}.join() === 'readme.txt'")).await;
    assert_eq!(
        eval(
            &page,
            "[document.getElementById('input').value, document.getElementById('mcp-menu').hidden]"
        )
        .await,
        json!(["see ", true])
    );

    // A template asks for its argument.
    type_into(&page, "#input", "@note").await;
    wait_for(
        &page,
        "document.querySelectorAll('#mcp-menu .mcp-option').length === 2",
    )
    .await;
    press(&page, "#input", "ArrowDown").await;
    wait_for(
        &page,
        "document.getElementById('input').getAttribute('aria-activedescendant') === 'mcp-option-1'",
    )
    .await;
    press(&page, "#input", "Enter").await;
    wait_for(&page, "!document.getElementById('mcp-args').hidden").await;
    type_into(&page, "#mcp-arg-0", "todo").await;
    press(&page, "#mcp-arg-0", "Enter").await;
    wait_for(&page, &format!("{CHIPS}.join() === 'readme.txt,todo.txt'")).await;

    // Escape closes the menu and leaves the text.
    type_into(&page, "#input", "@").await;
    wait_for(&page, "!document.getElementById('mcp-menu').hidden").await;
    press(&page, "#input", "Escape").await;
    wait_for(&page, "document.getElementById('mcp-menu').hidden").await;
    press(&page, "#input", "Backspace").await;

    s.model
        .push(ScriptedResponse::text("It says resources work."));
    type_into(&page, "#input", "what does it say?").await;
    press(&page, "#input", "Enter").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant')?.textContent.includes('resources work')",
    )
    .await;
    let request = s.turn_requests().pop().unwrap();
    let sent = request.body.to_string();
    assert!(sent.contains(README_TEXT), "{sent}");
    assert!(sent.contains("the note called todo"), "{sent}");

    // `/` offers the prompts; the mouse chooses; the form asks for the arguments.
    type_into(&page, "#input", "/rev").await;
    wait_for(&page, "!document.getElementById('mcp-menu').hidden").await;
    assert_eq!(eval(&page, MENU_KEYS).await, json!(["/t:review"]));
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#mcp-menu .mcp-option-about').textContent"
        )
        .await,
        "Ask for a review of a topic"
    );
    click(&page, "#mcp-menu .mcp-option").await;
    wait_for(&page, "!document.getElementById('mcp-args').hidden").await;
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('#mcp-args .mcp-arg-name')].map(e => e.textContent)"
        )
        .await,
        json!(["topic (required)", "tone"])
    );
    screenshots_in_each_scheme(&page, "mcp-prompt-form").await;
    set_viewport(&page, 1280, 800).await;
    type_into(&page, "#mcp-arg-0", "the parser").await;
    press(&page, "#mcp-arg-0", "Enter").await;
    wait_for(
        &page,
        "document.getElementById('input').value.startsWith('Please review the parser (plain).')",
    )
    .await;
    assert!(eval(&page, "document.getElementById('mcp-args').hidden").await == true);
    s.model.push(ScriptedResponse::text("Reviewed."));
    press(&page, "#input", "Enter").await;
    wait_for(
        &page,
        "[...document.querySelectorAll('.message.assistant')].some(m => m.textContent.includes('Reviewed.'))",
    )
    .await;
    let request = s.turn_requests().pop().unwrap();
    let text = request.last_user_text().unwrap();
    assert!(
        text.contains("Please review the parser (plain).")
            && text.contains("(assistant) Reviewing now."),
        "{text}"
    );
}
