//! `GetCurrentTime`: the current date and time.

use async_trait::async_trait;
use serde_json::json;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolSchema, ToolTraits};

use super::args::Args;
use super::registry::Tool;

/// Tells the model the current local date and time (and UTC).
#[derive(Debug, Default, Clone, Copy)]
pub struct GetCurrentTime;

#[async_trait]
impl Tool for GetCurrentTime {
    fn name(&self) -> &str {
        "GetCurrentTime"
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn schema(&self) -> ToolSchema {
        ToolSchema {
            name: self.name().into(),
            description: "Get the current local date and time (with weekday and UTC offset)."
                .into(),
            parameters: json!({"type": "object", "properties": {}, "additionalProperties": false}),
        }
    }

    async fn call(&self, _args: &Args, _context: &ToolContext) -> ToolOutcome {
        let local = chrono::Local::now();
        let utc = local.with_timezone(&chrono::Utc);
        ToolOutcome::ok(format!(
            "{} ({}), UTC {}",
            local.format("%Y-%m-%d %H:%M:%S %:z"),
            local.format("%A"),
            utc.format("%Y-%m-%dT%H:%M:%SZ")
        ))
    }
}
