//! `smallebot compact ID [--focus TEXT]`.

use std::sync::Arc;

use smallebot_application::ports::DenyAll;

use crate::error::HostError;
use crate::wiring;
use smallebot_agent::assembly::{Home, WarmUp};
use smallebot_terminal::conversation_ref::find_conversation;
use smallebot_terminal::render::tokens;

/// Compresses a conversation's context now and says what happened.
pub async fn run(home: &Home, id: &str, focus: Option<&str>) -> Result<(), HostError> {
    // A compaction runs no tools: nobody is asked.
    let app = wiring::build(home, None, Arc::new(DenyAll), WarmUp::Background).await?;
    let id = match find_conversation(app.service.store().as_ref(), id, None).await {
        Ok(conversation) => conversation.id,
        Err(error) => {
            app.close().await;
            return Err(error.into());
        }
    };
    errln!("Compressing context...");
    let report = app.service.compact(id, focus).await;
    app.close().await;
    let report = report?;
    if report.ok {
        outln!(
            "{}\ncontext: {} → {} tokens",
            report.detail,
            tokens(report.tokens_before),
            tokens(report.tokens_after)
        )?;
        Ok(())
    } else {
        Err(HostError::NothingCompacted(report.detail))
    }
}
