//! `SearchTools`: finds tools that wait until they are needed (MCP tools, when there are
//! too many to send with every request) by name and description; the tools it returns
//! are sent with the turn's requests from the next step on.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{
    OnDemandTools, ToolContext, ToolOutcome, ToolSchema, ToolTraits,
};
use smallebot_core::rules::tool_search::rank;

use super::tool::Tool;
use super::typed::TypedTool;

/// `SearchTools`'s built-in `toolResultMaxLengthByTool` entry: its results carry the
/// found tools' schemas, which must reach the model whole.
pub const SEARCH_TOOLS_DEFAULT_LIMIT: usize = 10_000;

/// Searches the tools that wait (MCP tools not pinned) and loads the best matches.
#[derive(Debug, Clone)]
pub struct SearchTools {
    waiting: Arc<[ToolSchema]>,
}

impl SearchTools {
    /// The name the model calls it by.
    pub const NAME: &'static str = "SearchTools";
    /// Matches returned when the call gives no `limit`.
    pub const DEFAULT_RESULTS: usize = 5;
    /// The most matches one call returns.
    pub const MAX_RESULTS: usize = 20;

    /// The tool over the schemas of the tools that wait.
    #[must_use]
    pub fn new(waiting: Arc<[ToolSchema]>) -> Self {
        Self { waiting }
    }
}

/// `SearchTools`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
pub struct SearchToolsArgs {
    /// Words of what the tool should do or of its name, e.g. 'weather forecast' or
    /// 'github pull request'.
    pub query: String,
    /// How many tools to return (default 5, at most 20).
    #[serde(default)]
    pub limit: Option<usize>,
}

#[async_trait]
impl TypedTool for SearchTools {
    type Args = SearchToolsArgs;

    fn name(&self) -> &str {
        Self::NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn description(&self) -> String {
        format!(
            "Find more tools: {} tools (from MCP servers) are not listed here to save \
             context. Search them by words of their name or what they do; the best \
             matches are returned with their parameters and can be called from your next \
             step on.",
            self.waiting.len()
        )
    }

    async fn run(&self, args: SearchToolsArgs, context: &ToolContext) -> ToolOutcome {
        let limit = args
            .limit
            .unwrap_or(Self::DEFAULT_RESULTS)
            .clamp(1, Self::MAX_RESULTS);
        let pairs: Vec<(&str, &str)> = self
            .waiting
            .iter()
            .map(|s| (s.name.as_str(), s.description.as_str()))
            .collect();
        let found: Vec<&ToolSchema> = rank(&args.query, &pairs, limit)
            .into_iter()
            .map(|index| &self.waiting[index])
            .collect();
        if found.is_empty() {
            return ToolOutcome::ok(format!(
                "No tool matches '{}'. Try other words: what the tool acts on, or its \
                 server's name.",
                args.query
            ));
        }
        context
            .loaded_tools
            .load(found.iter().map(|s| s.name.clone()));
        let mut text = format!(
            "Found {} tool(s); call them from your next step on:\n",
            found.len()
        );
        for schema in found {
            text.push_str(&format!(
                "\n## {}\n{}\nParameters: {}\n",
                schema.name, schema.description, schema.parameters
            ));
        }
        ToolOutcome::ok(text)
    }
}

/// What the registry offers when tools may wait: the schemas (see [`OnDemandTools`])
/// and the search tool over the waiting ones.
pub(crate) struct Deferral {
    /// The schemas sent always, and those that may wait.
    pub(crate) tools: OnDemandTools,
    /// `SearchTools` over the tools that may wait.
    pub(crate) search: Arc<dyn Tool>,
}

/// Splits `tools` (with their `schemas`, in the same order) into those that may wait
/// (deferrable, not named in `pinned`) and the others; `None` when none may wait.
pub(crate) fn deferral(
    tools: &[Arc<dyn Tool>],
    schemas: &[ToolSchema],
    pinned: &[String],
) -> Option<Deferral> {
    let waits =
        |tool: &Arc<dyn Tool>| tool.deferrable() && !pinned.iter().any(|name| name == tool.name());
    let waiting: Arc<[ToolSchema]> = tools
        .iter()
        .zip(schemas)
        .filter(|(tool, _)| waits(tool))
        .map(|(_, schema)| schema.clone())
        .collect();
    if waiting.is_empty() {
        return None;
    }
    let search = SearchTools::new(Arc::clone(&waiting));
    let always = tools
        .iter()
        .zip(schemas)
        .filter(|(tool, _)| !waits(tool))
        .map(|(_, schema)| schema.clone())
        .chain(std::iter::once(Tool::schema(&search)))
        .collect();
    Some(Deferral {
        tools: OnDemandTools {
            always,
            deferrable: waiting,
        },
        search: Arc::new(search),
    })
}
