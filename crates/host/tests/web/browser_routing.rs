//! One address per conversation: `/c/{id}`, Back and Forward between them, a reload
//! keeping the open one, and `/c/{id}#{seq}` scrolling to and marking a row.

use crate::browser_support;
use crate::common;

use browser_support::{Chromium, click, eval, open_page, reload, wait_for};
use common::Server;
use smallebot_testkit::ScriptedResponse;

#[tokio::test]
async fn each_conversation_has_an_address_that_back_forward_and_reload_keep() {
    let Some(browser) = Chromium::start("routing").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY"));
    let first = s.create().await;
    s.turn(&first, "about the alpha project").await;
    let second = s.create().await;
    s.turn(&second, "about the beta project").await;
    let page = open_page(&s, &browser).await;
    let shows = |word: &str| {
        format!("document.querySelector('.message.user')?.textContent.includes('{word}')")
    };
    // The newest opens, and the address says which.
    wait_for(&page, &shows("beta")).await;
    wait_for(&page, &format!("location.pathname === '/c/{second}'")).await;
    click(&page, &format!("#conversations li[data-id=\"{first}\"]")).await;
    wait_for(&page, &shows("alpha")).await;
    wait_for(&page, &format!("location.pathname === '/c/{first}'")).await;
    // Back and Forward move between them, inside the app.
    eval(&page, "history.back()").await;
    wait_for(&page, &shows("beta")).await;
    eval(&page, "history.forward()").await;
    wait_for(&page, &shows("alpha")).await;
    // A reload keeps the open one.
    reload(&page).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    wait_for(&page, &shows("alpha")).await;
    assert_eq!(
        eval(
            &page,
            "document.querySelector('#conversations li.active')?.dataset.id"
        )
        .await,
        first.as_str()
    );
    browser.close().await;
}

#[tokio::test]
async fn an_address_with_a_row_scrolls_to_it_and_marks_it() {
    let Some(browser) = Chromium::start("row link").await else {
        return;
    };
    let s = Server::start().await;
    s.script_roles(|_| ScriptedResponse::text("SUMMARY\n\n".repeat(12)));
    let id = s.create().await;
    for n in 0..8 {
        s.turn(&id, &format!("message number {n}")).await;
    }
    let timeline = s.get_json(&format!("/api/conversations/{id}")).await;
    let seq = timeline["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|row| row["content"] == "message number 1")
        .unwrap()["seq"]
        .as_i64()
        .unwrap();
    let page = browser.open(&format!("{}/c/{id}#{seq}", s.base)).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    wait_for(
        &page,
        &format!("document.querySelector('#messages .marked')?.dataset.seq === '{seq}'"),
    )
    .await;
    let marked = "document.querySelector('#messages .marked')";
    assert_eq!(
        eval(
            &page,
            &format!("{marked}.textContent.includes('message number 1')")
        )
        .await,
        true
    );
    // On screen, though the timeline is longer than the window (not at its end).
    assert_eq!(
        eval(
            &page,
            &format!(
                "(() => {{ const box = document.getElementById('messages'); \
                 const r = {marked}.getBoundingClientRect(), b = box.getBoundingClientRect(); \
                 return box.scrollHeight > box.clientHeight + 200 && r.top >= b.top && r.bottom <= b.bottom; }})()"
            )
        )
        .await,
        true
    );
    browser.close().await;
}
