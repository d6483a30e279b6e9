//! The skills panel in headless Chromium: the list of `GET /api/skills` (a broken
//! folder with its problems), a click showing one skill — its body through the
//! answers' Markdown path, its files and allowed tools — with nothing of a skill's text
//! run as HTML.

use crate::browser_support;
use crate::common;

use std::sync::Arc;

use browser_support::{Chromium, click, eval, open_page, screenshot, wait_for};
use common::Server;
use smallebot_protocol::api::{SkillDetail, SkillList, SkillSource, SkillSummary};
use smallebot_web::auth::UserSkills;

const XSS: &str = "<img src=x onerror=\"document.title='pwned'\">";

/// Two skills: `csv-summary` (loaded) and `broken` (its folder breaks the format).
struct TwoSkills;

impl UserSkills for TwoSkills {
    fn list(&self, _user: &str) -> SkillList {
        let skill = |name: &str, description: String, problems: Vec<String>| SkillSummary {
            name: name.to_owned(),
            description,
            source: SkillSource::Shared,
            location: format!("/home/skills/{name}"),
            problems,
        };
        SkillList {
            skills: vec![
                skill("csv-summary", format!("Summarizes CSV files {XSS}"), vec![]),
                skill(
                    "broken",
                    String::new(),
                    vec!["SKILL.md:1: no front matter".into()],
                ),
            ],
        }
    }

    fn show(&self, _user: &str, name: &str) -> Option<SkillDetail> {
        (name == "csv-summary").then(|| SkillDetail {
            name: name.to_owned(),
            description: format!("Summarizes CSV files {XSS}"),
            body: format!("## Steps\n\n1. Read the **header** row\n\n{XSS}\n"),
            files: vec!["scripts/run.sh".into()],
            allowed_tools: vec!["ReadFile".into(), "ExecuteCommand".into()],
        })
    }
}

#[tokio::test]
async fn the_skills_panel_lists_skills_and_shows_one_rendered() {
    let Some(browser) = Chromium::start("skills panel").await else {
        return;
    };
    let s = Server::start_with(|web| web.skills(Arc::new(TwoSkills))).await;
    let page = open_page(&s, &browser).await;
    click(&page, "#skills-open").await;
    wait_for(
        &page,
        "document.getElementById('skills-dialog').open \
         && document.querySelectorAll('#skills-list button').length === 2",
    )
    .await;
    assert!(
        eval(
            &page,
            "document.querySelector('#skills-list .skill-problems').textContent"
        )
        .await
        .as_str()
        .unwrap()
        .contains("no front matter")
    );
    click(&page, "#skills-list li:first-child button").await;
    wait_for(
        &page,
        "document.querySelector('#skill-detail .skill-body h2')?.textContent === 'Steps' \
         && document.querySelector('#skill-detail .skill-body strong')?.textContent === 'header'",
    )
    .await;
    assert_eq!(
        eval(
            &page,
            "[...document.querySelectorAll('#skill-detail .skill-files code, #skill-detail .skill-tools code')].map((c) => c.textContent)"
        )
        .await,
        serde_json::json!(["scripts/run.sh", "ReadFile", "ExecuteCommand"])
    );
    assert!(
        eval(
            &page,
            "document.querySelector('#skill-detail .skill-meta').textContent"
        )
        .await
        .as_str()
        .unwrap()
        .contains("<img src=x")
    );
    assert_eq!(
        eval(
            &page,
            "document.querySelectorAll('#skills-dialog [onerror], #skills-list img, #skill-detail .skill-meta img').length"
        )
        .await,
        0
    );
    screenshot(&page, "skills-panel").await;
    click(&page, "#skills-close").await;
    wait_for(&page, "!document.getElementById('skills-dialog').open").await;
    assert_ne!(eval(&page, "document.title").await, "pwned");
    browser.close().await;
}
