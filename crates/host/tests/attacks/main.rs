//! Attacks by a hostile signed-in user, played through the real binary: a multi-user
//! `smallebot serve` with two users, alice and bob, the model scripted per test, links
//! planted by the commands alice's model runs (the harness: `harness.rs`). Each test
//! is one attack and what must hold afterwards.
//!
//! - `links`: an upload saved through a linked `attachments` folder (over the web and
//!   with `run --attach`), a saved mcp.json aimed at the home, a dangling link at the
//!   save target;
//! - `copies`: a removed saved copy written again at most once; probing another user's
//!   files through the "same content already there" check (a link, a linked folder, a
//!   hard link);
//! - `race`: a folder swapped for a link while uploads are saved;
//! - `skills`: named pipes in skill folders (ReadSkill, SKILL.md);
//! - `cli_files`: images that are none or of absurd sizes, over the web and with
//!   `run --attach`; devices, FIFOs, sockets, directories and sparse files given to
//!   `run --attach` and the chat; ids with control characters.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod harness;

mod cli_files;
mod copies;
mod links;
mod race;
mod skills;
