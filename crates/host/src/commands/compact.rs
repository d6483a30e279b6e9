//! `smallebot compact ID [--focus TEXT]`.

use smallebot_agent::assembly::Home;
use smallebot_core::ids::ConversationId;

use crate::error::HostError;
use crate::render::tokens;
use crate::wiring;

/// Compresses a conversation's context now and says what happened.
pub async fn run(home: &Home, id: &str, focus: Option<&str>) -> Result<(), HostError> {
    let id: ConversationId = id.parse()?;
    let app = wiring::build(home, None).await?;
    println!("Compressing context...");
    let report = app.service.compact(id, focus).await;
    app.store.close().await;
    let report = report?;
    if report.ok {
        println!(
            "{}\ncontext: {} → {} tokens",
            report.detail,
            tokens(report.tokens_before),
            tokens(report.tokens_after)
        );
        Ok(())
    } else {
        Err(HostError::NothingCompacted(report.detail))
    }
}
