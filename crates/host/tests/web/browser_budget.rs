//! A turn a budget stopped, in headless Chromium: the page says so in words ("Stopped
//! by a budget: …" with the budget's reason), not as a failure — live from the
//! stream's `TurnFailed` and, after a reload, on the stored turn's card.

use crate::browser_support;
use crate::common;

use std::collections::HashMap;

use browser_support::{Chromium, eval, open_page, reload, screenshot, send, wait_for};
use common::Server;
use smallebot_core::rules::budget::Budgets;
use smallebot_core::rules::cost::{Pricing, amount_in_picos, price_per_token};
use smallebot_testkit::ScriptedResponse;

/// The live error line says the budget stopped the turn.
const LIVE: &str =
    "document.getElementById('error').textContent.startsWith('Stopped by a budget: ')";

/// The stored turn's card says so too.
const STORED: &str = "document.querySelector('.turn-failed .turn-error')?.textContent.startsWith('Stopped by a budget: ')";

#[tokio::test]
async fn a_turn_a_budget_stopped_says_so_live_and_after_a_reload() {
    let Some(browser) = Chromium::start("a budget's stop").await else {
        return;
    };
    let pricing = Pricing {
        input: price_per_token(2.0).unwrap(),
        cached_input: price_per_token(1.0).unwrap(),
        output: price_per_token(8.0).unwrap(),
        currency: "USD".into(),
    };
    let prices = HashMap::from([("test".to_owned(), pricing)]);
    // A request may cost up to about 1.03 USD (its prompt, and the context window's
    // 128 000 tokens of answer at 8 USD per million): the first turn's fits, then it
    // reports 1.6 USD spent, and the second turn's request could pass the budget.
    let budgets = Budgets {
        per_conversation: amount_in_picos(2.5),
        ..Budgets::default()
    };
    let s =
        Server::start_custom(|agent| agent.prices_and_budgets(prices, budgets), |web| web).await;
    s.model.respond_with(|r| {
        if r.asks_for_title() {
            ScriptedResponse::text("A title").usage(10, 2)
        } else {
            ScriptedResponse::text("First answer.").usage(1000, 200_000)
        }
    });
    let page = open_page(&s, &browser).await;
    send(&page, "Hi").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('First answer.')",
    )
    .await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    // The stream is open now: the stop arrives as its TurnFailed.
    send(&page, "Again").await;
    wait_for(&page, LIVE).await;
    let live = eval(&page, "document.getElementById('error').textContent").await;
    let live = live.as_str().unwrap().to_owned();
    assert!(live.contains("perConversation"), "{live}");
    assert!(!live.contains("The turn failed"), "{live}");
    // Screen readers hear the same: the live region names the budget, not a failure.
    let heard = eval(&page, "document.getElementById('announcer').textContent").await;
    assert_eq!(heard.as_str(), Some("Stopped by a budget."), "{heard}");
    wait_for(&page, "!document.getElementById('input').disabled").await;
    // Stored: a reload shows the same words on the turn's card.
    reload(&page).await;
    wait_for(&page, STORED).await;
    let stored = eval(
        &page,
        "document.querySelector('.turn-failed .turn-error').textContent",
    )
    .await;
    let stored = stored.as_str().unwrap().to_owned();
    assert!(stored.contains("perConversation"), "{stored}");
    let sent = s
        .model
        .requests()
        .iter()
        .filter(|r| !r.asks_for_title())
        .count();
    assert_eq!(sent, 1, "the second turn's request was not sent");
    screenshot(&page, "budget-stop").await;
    browser.close().await;
}
