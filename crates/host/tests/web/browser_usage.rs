//! Usage on the page, in headless Chromium: the open conversation's cost in the header
//! once a turn ran (from `GET /api/usage?conversation=`), and the Usage dialog with the
//! person's usage by day and model — by user too for an admin (the local user of a
//! server without users is one). Screenshots at desktop and phone widths, light and
//! dark.

use crate::browser_support;
use crate::common;

use std::collections::HashMap;

use browser_support::{Chromium, click, eval, open_page, screenshots_in_each_scheme, send};
use browser_support::{set_viewport, wait_for};
use common::Server;
use smallebot_core::rules::budget::Budgets;
use smallebot_core::rules::cost::{Pricing, price_per_token};
use smallebot_testkit::ScriptedResponse;

#[tokio::test]
async fn the_header_shows_the_conversations_cost_and_the_dialog_the_usage() {
    let Some(browser) = Chromium::start("usage").await else {
        return;
    };
    let pricing = Pricing {
        input: price_per_token(2.0).unwrap(),
        cached_input: price_per_token(1.0).unwrap(),
        output: price_per_token(8.0).unwrap(),
        currency: "USD".into(),
    };
    let prices = HashMap::from([("test".to_owned(), pricing)]);
    let s = Server::start_custom(
        |agent| agent.prices_and_budgets(prices, Budgets::default()),
        |web| web,
    )
    .await;
    // 1000 prompt tokens at 2 and 100 completion tokens at 8 per million: 0.0028 (the
    // title's request adds its estimated tokens).
    s.model
        .respond_with(|_| ScriptedResponse::text("Hello there.").usage(1000, 100));
    let page = open_page(&s, &browser).await;
    assert_eq!(
        eval(&page, "document.getElementById('cost').hidden").await,
        true
    );
    send(&page, "Hi").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('Hello')",
    )
    .await;
    wait_for(&page, "!document.getElementById('cost').hidden").await;
    let cost = eval(&page, "document.getElementById('cost').textContent").await;
    let cost = cost.as_str().unwrap().to_owned();
    let id = eval(&page, "location.pathname.split('/').pop()").await;
    let report = s
        .get_json(&format!("/api/usage?conversation={}", id.as_str().unwrap()))
        .await;
    let amount = report["total"]["cost"]["USD"]["amount"].as_f64().unwrap();
    assert!(amount >= 0.0028, "{report}");
    let shown: f64 = cost.strip_suffix(" USD").unwrap().parse().unwrap();
    assert!(
        (shown - amount).abs() <= amount * 0.05,
        "{cost} for {amount}"
    );
    screenshots_in_each_scheme(&page, "usage-header").await;

    set_viewport(&page, 1280, 800).await;
    click(&page, "#usage-open").await;
    wait_for(
        &page,
        "document.querySelectorAll('.usage-table').length === 3",
    )
    .await;
    let tables = eval(
        &page,
        "[...document.querySelectorAll('.usage-section')].map(s => [s.querySelector('h3').textContent, \
         [...s.querySelectorAll('tr')].map(r => [...r.children].map(c => c.textContent))])",
    )
    .await;
    let sections = tables.as_array().unwrap();
    let headings: Vec<&str> = sections.iter().map(|s| s[0].as_str().unwrap()).collect();
    assert_eq!(headings, ["By day", "By model", "By user"], "{tables}");
    // By model: the one model's two requests (the turn's, the title's), and the same
    // cost as the header's (there is one conversation).
    let by_model = &sections[1][1][1];
    assert_eq!(by_model[0], "test", "{tables}");
    assert_eq!(by_model[1], "2", "{tables}");
    assert_eq!(by_model[4], cost.as_str(), "{tables}");
    assert_eq!(sections[2][1][1][0], "alice", "{tables}");
    assert!(
        eval(&page, "document.getElementById('usage-scope').textContent")
            .await
            .as_str()
            .unwrap()
            .contains("Everyone's"),
    );
    screenshots_in_each_scheme(&page, "usage-dialog").await;
}
