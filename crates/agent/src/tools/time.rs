//! `GetCurrentTime`: the current date and time.

use async_trait::async_trait;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};

use super::typed::{NoArgs, TypedTool};

/// Tells the model the current local date and time (and UTC).
#[derive(Debug, Default, Clone, Copy)]
pub struct GetCurrentTime;

impl GetCurrentTime {
    /// The name the model calls it by.
    pub const NAME: &'static str = "GetCurrentTime";
}

#[async_trait]
impl TypedTool for GetCurrentTime {
    type Args = NoArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn description(&self) -> String {
        "Get the current local date and time (with weekday and UTC offset).".into()
    }

    async fn run(&self, _args: NoArgs, _context: &ToolContext) -> ToolOutcome {
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
