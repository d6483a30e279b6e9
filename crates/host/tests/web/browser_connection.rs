//! The page in headless Chromium when its connection to the server breaks: the page
//! reaches the server through a TCP proxy the test takes down and brings back on the
//! same port, while a turn runs. A banner (`role=status`) says the page is
//! reconnecting or the server unreachable, goes once the event stream is back, and the
//! timeline catches up: the answer that finished meanwhile is shown once, its tool card
//! once. A read that failed while the server was away is done again once it answers. Screenshots of the banner (phone and laptop widths, light and dark) go to
//! `target/ui-screenshots/`.

use crate::browser_support;
use crate::common;

use std::net::SocketAddr;
use std::str::FromStr;
use std::time::{Duration, Instant};

use browser_support::{
    Chromium, eval, prefer_scheme, screenshot_at, send, set_viewport, wait_for, wait_within,
};
use common::Server;
use smallebot_core::entities::TurnStatus;
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::TurnRepository;
use smallebot_testkit::{Gate, ScriptedResponse, ToolCallSpec};
use smallebot_web::hosts_for;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

/// How the proxy answers while the server is "away".
#[derive(Clone, Copy)]
enum Away {
    /// Nothing listens on the port: connections are refused (the server is down).
    Refused,
    /// Every request gets `502 Bad Gateway` (a reverse proxy whose server is down);
    /// the browser gives such an event stream up for good.
    BadGateway,
}

/// A TCP proxy on a port of its own in front of the test server (the page's only way
/// to it).
struct Proxy {
    addr: SocketAddr,
    target: SocketAddr,
    task: JoinHandle<()>,
}

impl Proxy {
    /// Cuts every connection and answers as `away` says (or, with `None`, passes
    /// connections to the server again), on the same port.
    async fn switch(&mut self, away: Option<Away>) {
        self.task.abort();
        let _ = (&mut self.task).await; // the listener and the connections are gone
        if let Some(Away::Refused) = away {
            self.task = tokio::spawn(async {});
            return;
        }
        let listener = TcpListener::bind(self.addr).await.unwrap();
        self.task = tokio::spawn(serve(listener, self.target, away));
    }
}

async fn serve(listener: TcpListener, target: SocketAddr, away: Option<Away>) {
    let mut connections = tokio::task::JoinSet::new();
    while let Ok((mut inbound, _)) = listener.accept().await {
        while connections.try_join_next().is_some() {}
        connections.spawn(async move {
            if away.is_some() {
                let mut request = [0u8; 4096];
                let _ = inbound.read(&mut request).await;
                let _ = inbound
                    .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n")
                    .await;
            } else if let Ok(mut outbound) = TcpStream::connect(target).await {
                let _ = tokio::io::copy_bidirectional(&mut inbound, &mut outbound).await;
            }
        });
    }
}

const BANNER_SHOWN: &str = "!document.getElementById('connection').hidden";
const BANNER_GONE: &str = "document.getElementById('connection').hidden";
const UNREACHABLE: &str = "!document.getElementById('connection').hidden \
    && document.getElementById('connection').textContent === 'Server unreachable — retrying'";

/// How many elements `selector` finds whose text contains `text`.
fn count(selector: &str, text: &str) -> String {
    format!(
        "[...document.querySelectorAll({selector:?})].filter((e) => e.textContent.includes({text:?})).length"
    )
}

/// Waits until the turns of the open conversation are all completed (on the server,
/// not through the proxy).
async fn wait_completed(s: &Server, id: ConversationId) {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        let turns = s.store.list_turns(id).await.unwrap();
        if !turns.is_empty() && turns.iter().all(|t| t.status == TurnStatus::Completed) {
            return;
        }
        assert!(
            Instant::now() < deadline,
            "the turn did not complete: {turns:?}"
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// A turn whose answer pauses mid-stream (after a tool call) until the test opens
/// `rest`, sent through `proxy`; returns once the page shows the card and the first
/// part, with the conversation's id.
async fn half_answered(
    browser: &Chromium,
    s: &Server,
    proxy: &Proxy,
    rest: &Gate,
) -> (chromiumoxide::Page, ConversationId) {
    s.model.push_all([
        ScriptedResponse::tool_calls([ToolCallSpec::new("call_once", "GetCurrentTime", "{}")]),
        ScriptedResponse::text("Part one of the answer. Part two came after the reconnect.")
            .chunk_size(6)
            .pause_after_chunks(3, rest),
    ]);
    // A new conversation, stored with its first message.
    let page = browser.open(&format!("http://{}/", proxy.addr)).await;
    wait_for(&page, "!document.getElementById('input').disabled").await;
    assert_eq!(eval(&page, BANNER_SHOWN).await, false);
    send(&page, "what time is it").await;
    wait_for(
        &page,
        "document.querySelector('[data-call-id=\"call_once\"]') !== null \
         && document.querySelector('.message.assistant.streaming')?.textContent.includes('Part one')",
    )
    .await;
    let path = eval(&page, "location.pathname").await;
    let id = path.as_str().unwrap().trim_start_matches("/c/");
    // Opening it is done (its last read, the list, is drawn): the connection is lost
    // while the answer streams, not while the page is still reading.
    wait_for(
        &page,
        &format!("document.querySelector('#conversations li[data-id=\"{id}\"]') !== null"),
    )
    .await;
    (page, ConversationId::from_str(id).unwrap())
}

/// The answer ends while the page cannot hear it (the banner stays); then the server
/// is back: the banner goes, and the answer is shown once, rendered, with one tool
/// card and one question.
async fn back_after_the_answer(
    page: &chromiumoxide::Page,
    s: &Server,
    proxy: &mut Proxy,
    rest: &Gate,
    id: ConversationId,
) {
    rest.open();
    wait_completed(s, id).await;
    assert_eq!(eval(page, BANNER_SHOWN).await, true);
    proxy.switch(None).await;
    wait_within(page, BANNER_GONE, Duration::from_secs(20)).await;
    wait_within(
        page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('Part two came after the reconnect.') \
         && !document.getElementById('input').disabled",
        Duration::from_secs(20),
    )
    .await;
    assert_eq!(
        eval(page, &count(".message.assistant", "Part one")).await,
        1
    );
    assert_eq!(
        eval(
            page,
            "document.querySelectorAll('[data-call-id=\"call_once\"]').length"
        )
        .await,
        1
    );
    assert_eq!(
        eval(page, &count(".message.user", "what time is it")).await,
        1
    );
    assert_eq!(
        eval(
            page,
            "document.getElementById('error').hidden || document.getElementById('error').textContent"
        )
        .await,
        true
    );
}

async fn setup(test: &str) -> Option<(Chromium, Server, Proxy)> {
    let browser = Chromium::start(test).await?;
    // The proxy listens before the server starts: the server answers to its name only.
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let s = Server::start_with(|web| web.allow_hosts(hosts_for(addr))).await;
    let target = SocketAddr::from_str(s.base.trim_start_matches("http://")).unwrap();
    let task = tokio::spawn(serve(listener, target, None));
    Some((browser, s, Proxy { addr, target, task }))
}

#[tokio::test]
async fn a_lost_event_stream_shows_a_banner_and_the_answer_arrives_once_after_reconnecting() {
    let Some((browser, s, mut proxy)) = setup("reconnecting banner").await else {
        return;
    };
    let rest = Gate::new();
    let (page, id) = half_answered(&browser, &s, &proxy, &rest).await;

    // The server goes away mid-answer: the banner says so, as a status.
    proxy.switch(Some(Away::Refused)).await;
    wait_for(&page, BANNER_SHOWN).await;
    assert_eq!(
        eval(
            &page,
            "document.getElementById('connection').getAttribute('role')"
        )
        .await,
        "status"
    );
    wait_for(&page, UNREACHABLE).await;
    for theme in ["light", "dark"] {
        prefer_scheme(&page, theme).await;
        for (width, height) in [(390, 844), (1280, 800)] {
            set_viewport(&page, width, height).await;
            tokio::time::sleep(Duration::from_millis(300)).await; // the drawer slid away
            screenshot_at(
                &page,
                &format!("connection-banner-{width}-{theme}"),
                width,
                height,
            )
            .await;
        }
    }

    // The person opens the conversation again meanwhile: the read fails, and says so.
    eval(
        &page,
        &format!(
            "document.querySelector('#conversations li[data-id=\"{id}\"] .row-link').click(); true"
        ),
    )
    .await;
    wait_for(&page, "!document.getElementById('error').hidden").await;

    // Back: the page loads the stored state again (the failed read is done again, its
    // error gone) and opens the event stream anew.
    back_after_the_answer(&page, &s, &mut proxy, &rest, id).await;
    browser.close().await;
}

#[tokio::test]
async fn a_stream_the_browser_gave_up_on_is_opened_again_once_the_server_answers() {
    let Some((browser, s, mut proxy)) = setup("bad gateway banner").await else {
        return;
    };
    let rest = Gate::new();
    let (page, id) = half_answered(&browser, &s, &proxy, &rest).await;

    // A reverse proxy answering 502: the browser gives the event stream up for good.
    proxy.switch(Some(Away::BadGateway)).await;
    wait_for(&page, UNREACHABLE).await;
    // The server answers again: the page loads the stored state and a new stream.
    back_after_the_answer(&page, &s, &mut proxy, &rest, id).await;
    // And the new stream works: the next answer streams in.
    s.model.push(ScriptedResponse::text("A later answer."));
    send(&page, "and now").await;
    wait_for(
        &page,
        &format!(
            "{} === 1",
            count(".message.assistant.rendered", "A later answer.")
        ),
    )
    .await;
    assert_eq!(eval(&page, BANNER_SHOWN).await, false);
    browser.close().await;
}
