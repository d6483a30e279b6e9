//! The web app (`smallebot-web`) end to end: its routes, event streams and page (in
//! headless Chromium) over real conversation services, built with the agent's assembly
//! as `smallebot serve` builds them. They live in the host, which wires the agent to
//! the web app, so that the web crate depends on the application and the protocol
//! only — never on the agent, not even for its tests.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod browser_support;
#[path = "../cli/mod.rs"]
mod cli;
mod common;
mod mcp_support;

mod admission;
mod api;
mod attachments;
mod auth;
mod browser;
mod browser_access;
mod browser_account;
mod browser_actions;
mod browser_attachments;
mod browser_axe;
mod browser_budget;
mod browser_cards;
mod browser_changes;
mod browser_connection;
mod browser_diff;
mod browser_drafts;
mod browser_elicitation;
mod browser_export;
mod browser_hooks;
mod browser_keyboard;
mod browser_layout;
mod browser_list;
mod browser_markdown;
mod browser_mcp;
mod browser_mcp_offers;
mod browser_outage;
mod browser_outcomes;
mod browser_page;
mod browser_permissions;
mod browser_routing;
mod browser_screens;
mod browser_search;
mod browser_skills;
mod browser_streamed;
mod browser_subagents;
mod browser_summary;
mod browser_theme;
mod browser_usage;
mod browser_versions;
mod elicitation;
mod errors;
mod export;
mod first_message;
mod history_data;
mod hygiene;
mod mcp_offers;
mod metrics;
mod models;
mod outage;
mod permissions_api;
mod protocol;
mod routes;
mod signin;
mod streams;
mod sub_agents;
mod upload_quotas;
