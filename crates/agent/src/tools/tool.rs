//! [`Tool`]: one tool the model may call, as the registry and the gate see it.

use async_trait::async_trait;
use smallebot_application::ports::{Args, ToolContext, ToolOutcome, ToolSchema, ToolTraits};
use smallebot_core::rules::permission::CallSubject;

use super::call_view::CallView;

/// One tool the model may call. A tool declares its name once ([`Tool::name`]) and
/// what it does ([`Tool::traits`], [`Tool::written_paths`]), so nothing else in the
/// program needs to know tools by name.
#[async_trait]
pub trait Tool: Send + Sync {
    /// The name the model calls it by (PascalCase); [`Tool::schema`] uses it too.
    fn name(&self) -> &str;

    /// Name, description and parameter schema (built once, when registered).
    fn schema(&self) -> ToolSchema;

    /// Whether it mutates anything and how it touches the task list.
    fn traits(&self) -> ToolTraits;

    /// The files a call with `args` writes if it succeeds: absolute, normalized paths
    /// (plan tracking records them on the task in progress). Default: none.
    fn written_paths(&self, args: &Args) -> Vec<String> {
        let _ = args;
        Vec::new()
    }

    /// What the permission gate sees of a call with `args` ([`CallView`]), or the
    /// answer to give instead when the tool refuses the call before any rule is
    /// looked at (`ExecuteCommand`'s blacklist, malformed arguments, a tool that needs
    /// a conversation called outside one). Default: the tool's name alone, asked about
    /// when the rules say so.
    ///
    /// # Errors
    /// The tool's refusal, as the call's result.
    fn permission(&self, args: &Args, context: &ToolContext) -> Result<CallView, ToolOutcome> {
        let _ = (args, context);
        Ok(CallView::new(CallSubject::tool(self.name())))
    }

    /// Whether the tool may wait until a search finds it (`SearchTools`) instead of
    /// being sent with every request, when the tools that may would crowd the
    /// context. Default: no (MCP servers' tools may).
    fn deferrable(&self) -> bool {
        false
    }

    /// Runs the call with parsed arguments. Failures are outcomes with status `error`
    /// whose text tells the model what went wrong and what to do.
    async fn call(&self, args: &Args, context: &ToolContext) -> ToolOutcome;
}
