//! # smallebot-agent
//!
//! The model side of SmallEBot: configuration files, the tokenizer, the history builder
//! that turns stored rows into an OpenAI chat request, the OpenAI-compatible model client
//! (streaming, retries, idle timeout), and the built-in tools.

pub mod assembly;
pub mod client;
pub mod config;
pub mod history;
pub mod summarizer;
pub mod tasks_plan;
pub mod tokenizer;
pub mod tools;
