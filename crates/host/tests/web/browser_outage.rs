//! The page in headless Chromium during a database outage: a real PostgreSQL cluster
//! stopped under a running server. A message sent meanwhile is refused (`503`), the
//! page shows a banner saying why and keeps the draft, leaving no bubble for a message
//! that was not stored; once the database is back the banner goes by itself, the
//! conversation is loaded again and the draft can be sent and answered. Screenshots of
//! the banner (phone and laptop widths) go to `target/ui-screenshots/`.

use crate::browser_support;

use std::sync::Arc;
use std::time::Duration;

use browser_support::{
    Chromium, click, eval, press, reload, screenshot_at, send, wait_for, wait_within,
};
use smallebot_agent::assembly::AgentAssembly;
use smallebot_model_client::ChatEndpoint;
use smallebot_postgres::PgStore;
use smallebot_testkit::postgres::TestCluster;
use smallebot_testkit::{RecordedRequest, ScriptedResponse, TestModel};
use smallebot_web::{WebState, hosts_for, router};

/// How long the page may take to show the outage: the pool waits at most 5 s for a
/// connection before the request fails with `503`.
const SHOWN_WITHIN: Duration = Duration::from_secs(15);

/// How long the page may take to recover once the database runs again: it polls
/// `/readyz` every 2 s, and the pool reconnects on its own.
const RECOVERED_WITHIN: Duration = Duration::from_secs(30);

const BANNER_SHOWN: &str = "!document.getElementById('outage').hidden";

/// The number of user bubbles whose text contains `text`.
fn user_bubbles_with(text: &str) -> String {
    format!(
        "[...document.querySelectorAll('#messages .message.user')]\
         .filter((b) => b.textContent.includes({text:?})).length"
    )
}

/// A web server on a fresh database of a PostgreSQL test cluster, as `smallebot serve`
/// runs it; `None` when the test is skipped (no browser, no PostgreSQL, neither
/// required).
struct Setup {
    browser: Chromium,
    cluster: TestCluster,
    model: TestModel,
    base: String,
}

async fn setup(test: &str) -> Option<Setup> {
    let browser = Chromium::start(test).await?;
    let Some(cluster) = TestCluster::start(test) else {
        browser.close().await;
        return None;
    };
    let url = cluster.create_database().unwrap();
    let store = PgStore::connect(&url).await.unwrap();
    let model = TestModel::start().await.unwrap();
    model.answer_when(RecordedRequest::asks_for_title, |_| {
        ScriptedResponse::text("Outage drill")
    });
    let agent = AgentAssembly::new(
        Arc::new(store.clone()),
        ChatEndpoint::new(model.base_url(), "test"),
    )
    .build()
    .unwrap();
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let state = WebState::new(Arc::new(agent.service), "alice").allow_hosts(hosts_for(addr));
    tokio::spawn(smallebot_web::serve(listener, router(state)));
    Some(Setup {
        browser,
        cluster,
        model,
        base: format!("http://{addr}/"),
    })
}

#[tokio::test]
async fn the_page_shows_a_database_outage_and_recovers_by_itself() {
    let Some(Setup {
        browser,
        cluster,
        model,
        base,
    }) = setup("the_page_shows_a_database_outage").await
    else {
        return;
    };
    model.push_all([
        ScriptedResponse::text("Before the outage."),
        ScriptedResponse::text("Back again."),
    ]);

    let page = browser.open(&base).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    send(&page, "hello before").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('Before the outage.')",
    )
    .await;
    wait_for(
        &page,
        "document.getElementById('title').textContent === 'Outage drill' \
         && !document.getElementById('input').disabled",
    )
    .await;
    assert_eq!(eval(&page, BANNER_SHOWN).await, false);

    cluster.stop_server().unwrap();
    send(&page, "lost in the outage").await;
    wait_within(&page, BANNER_SHOWN, SHOWN_WITHIN).await;
    let banner = eval(&page, "document.getElementById('outage').textContent").await;
    let banner = banner.as_str().unwrap();
    assert!(
        banner.contains("cannot reach its database") && banner.contains("recovers by itself"),
        "{banner}"
    );
    // What failed is said once, under the banner.
    wait_for(&page, "!document.getElementById('error').hidden").await;
    let error = eval(&page, "document.getElementById('error').textContent").await;
    let error = error.as_str().unwrap();
    assert!(
        error.contains("the database cannot be reached") && error.contains("Check that it runs"),
        "{error}"
    );
    // The message was not stored: no bubble pretends it was; the draft is kept, can be
    // edited, and cannot be sent until the page is back.
    wait_for(
        &page,
        "!document.getElementById('input').disabled && document.getElementById('send').disabled",
    )
    .await;
    assert_eq!(
        eval(&page, &user_bubbles_with("lost in the outage")).await,
        0
    );
    assert_eq!(
        eval(&page, "document.getElementById('input').value").await,
        "lost in the outage"
    );
    // Enter while the banner is up sends nothing and says why.
    eval(&page, "document.getElementById('error').textContent = ''").await;
    click(&page, "#input").await;
    press(&page, "#input", "Enter").await;
    wait_for(
        &page,
        "document.getElementById('error').textContent.startsWith('Not sent: ') \
         && document.getElementById('error').textContent.includes('Check that it runs')",
    )
    .await;
    assert_eq!(
        eval(&page, "document.getElementById('input').value").await,
        "lost in the outage"
    );
    // The earlier conversation stays on screen.
    assert_eq!(eval(&page, &user_bubbles_with("hello before")).await, 1);
    screenshot_at(&page, "outage-banner-390", 390, 844).await;
    screenshot_at(&page, "outage-banner-1280", 1280, 800).await;
    // Still down after the page's first checks of /readyz.
    assert_eq!(eval(&page, BANNER_SHOWN).await, true);

    cluster.start_server().unwrap();
    // The banner goes once the page is loaded again, and sending comes back with it.
    wait_within(
        &page,
        "document.getElementById('outage').hidden && !document.getElementById('send').disabled",
        RECOVERED_WITHIN,
    )
    .await;
    // Loaded again: the list, the stored timeline, the controls.
    wait_for(
        &page,
        "document.querySelector('#conversations li.active')?.textContent === 'Outage drill' \
         && document.querySelector('.message.assistant.rendered')?.textContent.includes('Before the outage.') \
         && !document.getElementById('input').disabled",
    )
    .await;
    assert_eq!(
        eval(&page, "document.getElementById('error').hidden").await,
        true
    );
    // The kept draft is sent and answered through the reopened event stream.
    assert_eq!(
        eval(&page, "document.getElementById('input').value").await,
        "lost in the outage"
    );
    click(&page, "#input").await;
    press(&page, "#input", "Enter").await;
    wait_for(
        &page,
        "[...document.querySelectorAll('.message.assistant.rendered')]\
         .some((b) => b.textContent.includes('Back again.'))",
    )
    .await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    assert_eq!(
        eval(&page, &user_bubbles_with("lost in the outage")).await,
        1
    );
    assert_eq!(eval(&page, BANNER_SHOWN).await, false);
    browser.close().await;
}

#[tokio::test]
async fn a_page_opened_during_an_outage_loads_itself_once_the_database_is_back() {
    let Some(Setup {
        browser,
        cluster,
        model,
        base,
    }) = setup("a_page_opened_during_an_outage").await
    else {
        return;
    };
    model.push_all([ScriptedResponse::text("Stored before.")]);
    let page = browser.open(&base).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    send(&page, "remember this").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('Stored before.') \
         && document.getElementById('title').textContent === 'Outage drill' \
         && !document.getElementById('input').disabled",
    )
    .await;

    cluster.stop_server().unwrap();
    // Opened again while the database is down: nothing can be loaded.
    reload(&page).await;
    wait_within(&page, BANNER_SHOWN, SHOWN_WITHIN).await;
    assert_eq!(
        eval(
            &page,
            "document.querySelectorAll('#conversations li').length"
        )
        .await,
        0
    );
    assert_eq!(
        eval(&page, "document.getElementById('input').disabled").await,
        true
    );

    cluster.start_server().unwrap();
    // Loaded by itself: the list, the stored conversation, the controls.
    wait_within(
        &page,
        "document.getElementById('outage').hidden \
         && document.querySelector('#conversations li.active')?.textContent === 'Outage drill' \
         && document.querySelector('.message.assistant.rendered')?.textContent.includes('Stored before.') \
         && !document.getElementById('input').disabled",
        RECOVERED_WITHIN,
    )
    .await;
    assert_eq!(eval(&page, &user_bubbles_with("remember this")).await, 1);
    assert_eq!(
        eval(&page, "document.getElementById('error').hidden").await,
        true
    );
    browser.close().await;
}
