//! Screenshots of the main views at 1280×800, 768×1024 and 390×844, light and dark,
//! under `target/ui-screenshots/` (`main-<width>-<theme>.png`, the drawer and the menu
//! at phone width, the sign-in card): for people to look at.

use crate::browser_support;
use crate::common;

use std::time::Duration;

use browser_support::{
    Chromium, click, eval, open_page, prefer_scheme, screenshot_at, send, set_viewport, wait_for,
};
use common::Server;
use smallebot_testkit::{ScriptedResponse, ToolCallSpec};

const ANSWER: &str = "Here is a plan for the **release notes**:\n\n\
1. Collect the merged changes since `v0.4.0`.\n2. Group them by area.\n3. Write one line each.\n\n\
```bash\ngit log --oneline v0.4.0..HEAD | wc -l\n```\n\n\
| Area | Changes |\n|------|---------|\n| Web  | 12      |\n| CLI  | 5       |\n\n\
> Keep each line short; link the issue.\n\n- [x] collect\n- [ ] write";

#[tokio::test]
async fn the_main_views_at_three_widths_in_both_themes() {
    let Some(browser) = Chromium::start("screens").await else {
        return;
    };
    let (s, _workspace) = Server::with_workspace(&[("CHANGES.md", "v0.4.0\n- first\n")]).await;
    s.answer_titles_with("Release notes for v0.5");
    s.model.push_all([
        ScriptedResponse::tool_calls([
            ToolCallSpec::new("r1", "ReadFile", r#"{"path":"CHANGES.md"}"#),
            ToolCallSpec::new(
                "w1",
                "WriteFile",
                r##"{"path":"NOTES.md","content":"# v0.5\n- web: dark mode\n"}"##,
            ),
        ]),
        ScriptedResponse::text(ANSWER),
    ]);
    let page = open_page(&s, &browser).await;
    send(&page, "Draft the release notes from CHANGES.md").await;
    wait_for(
        &page,
        "document.querySelector('.message.assistant.rendered')?.textContent.includes('write') \
         && !document.getElementById('input').disabled",
    )
    .await;
    for theme in ["light", "dark"] {
        prefer_scheme(&page, theme).await;
        for (width, height) in [(1280, 800), (768, 1024), (390, 844)] {
            set_viewport(&page, width, height).await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            eval(&page, "document.getElementById('messages').scrollTop = 0").await;
            screenshot_at(&page, &format!("main-{width}-{theme}"), width, height).await;
        }
        // The phone's drawer and menu.
        click(&page, "#sidebar-toggle").await;
        wait_for(
            &page,
            "document.getElementById('sidebar').getBoundingClientRect().left === 0",
        )
        .await;
        screenshot_at(&page, &format!("drawer-390-{theme}"), 390, 844).await;
        click(&page, "#sidebar-close").await;
        wait_for(
            &page,
            "getComputedStyle(document.getElementById('sidebar')).visibility === 'hidden'",
        )
        .await;
        click(&page, "#more").await;
        screenshot_at(&page, &format!("menu-390-{theme}"), 390, 844).await;
        click(&page, "#more").await;
    }
    browser.close().await;

    let Some(browser) = Chromium::start("sign-in screen").await else {
        return;
    };
    let (s, _token) = Server::with_one_user().await;
    let page = browser.open(&format!("{}/", s.base)).await;
    wait_for(&page, "!document.getElementById('login').hidden").await;
    for theme in ["light", "dark"] {
        prefer_scheme(&page, theme).await;
        screenshot_at(&page, &format!("sign-in-1280-{theme}"), 1280, 800).await;
        screenshot_at(&page, &format!("sign-in-390-{theme}"), 390, 844).await;
    }
    browser.close().await;
}
