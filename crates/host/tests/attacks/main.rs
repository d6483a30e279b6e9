//! Attacks by a hostile signed-in user, played through the real binary: a multi-user
//! `smallebot serve` with two users, alice and bob, the model scripted per test, links
//! planted by the commands alice's model runs (the harness: `harness.rs`). Each test
//! is one attack and what must hold afterwards.
//!
//! - `links`: a dangling link at the save target of an upload.
//! - `cli_files`: images that are none or of absurd sizes, over the web and with
//!   `run --attach`; devices, FIFOs, sockets, directories and sparse files given to
//!   `run --attach` and the chat; ids with control characters.
#![cfg(target_os = "linux")]
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod harness;

mod cli_files;
mod links;
