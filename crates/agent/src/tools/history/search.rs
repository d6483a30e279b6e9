//! `SearchHistory`: full-text search over the stored history of this conversation or of
//! every conversation of its user.

use std::sync::Arc;

use async_trait::async_trait;
use schemars::JsonSchema;
use serde::Deserialize;
use smallebot_application::ports::{ToolContext, ToolOutcome, ToolTraits};
use smallebot_core::entities::{SearchQuery, SearchScope};
use smallebot_core::ids::ConversationId;
use smallebot_core::repository::Store;
use smallebot_core::rules::search_limits::{
    DEFAULT_MAX_RESULTS, MAX_DAYS, MAX_RESULTS, clamp_max_results, since_days_ago,
};

use super::matches::search_and_format;
use super::names::SEARCH_HISTORY;
use crate::tools::typed::{self, TypedTool};
use smallebot_application::ports::ArgError;

const NAME: &str = SEARCH_HISTORY;

/// `SearchHistory`'s arguments.
#[derive(Debug, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub struct SearchArgs {
    /// Words to find (all must occur); punctuation and search operators are matched literally.
    pub query: String,
    /// Only rows from the last N days (omit for all time).
    #[serde(default, deserialize_with = "typed::lenient_u64")]
    #[schemars(with = "Option<u64>", range(min = 1, max = MAX_DAYS))]
    pub days: Option<u64>,
    /// Most matches to return (default 10; clamped to 1–50).
    #[serde(default, deserialize_with = "typed::lenient_u64")]
    #[schemars(with = "Option<u64>", range(min = 1, max = MAX_RESULTS))]
    pub max_results: Option<u64>,
    /// "conversation" (default): this conversation; "all": all of your conversations.
    #[serde(default)]
    #[schemars(extend("enum" = ["conversation", "all"]))]
    pub scope: Option<String>,
}

/// Searches user and assistant messages and tool calls (name, arguments, result) of
/// the current conversation (`scope: "conversation"`, the default) or of every
/// conversation of the same user (`"all"`; never another user's). Newest first, each
/// match with one row before and after (see [`super::format_matches`]).
///
/// Arguments: `query` (required, plain words, all must occur; search syntax is matched
/// literally), `days` (1..=36500, only rows from the last N days; other values are an
/// error), `maxResults` (default 10, clamped to 1..=50), `scope`.
pub struct SearchHistory {
    store: Arc<dyn Store>,
}

impl SearchHistory {
    /// The name the model calls it by.
    pub const NAME: &'static str = NAME;

    /// The tool over `store`.
    #[must_use]
    pub fn new(store: Arc<dyn Store>) -> Self {
        Self { store }
    }

    fn arg_error(message: impl std::fmt::Display) -> ToolOutcome {
        ToolOutcome::error(ArgError(format!("{NAME}: {message}")).to_string())
    }

    async fn scope(
        &self,
        word: Option<String>,
        conversation: ConversationId,
    ) -> Result<SearchScope, ToolOutcome> {
        match word.map(|w| w.trim().to_ascii_lowercase()).as_deref() {
            None | Some("" | "conversation") => Ok(SearchScope::Conversation(conversation)),
            Some("all") => match self.store.get_conversation(conversation).await {
                Ok(Some(c)) => Ok(SearchScope::User(c.user_name)),
                Ok(None) => Err(ToolOutcome::error(format!(
                    "Error: {NAME}: the current conversation {conversation} no longer exists, \
                     so its user is unknown."
                ))),
                Err(e) => Err(ToolOutcome::error(format!(
                    "Error: {NAME}: reading the current conversation failed: {e}"
                ))),
            },
            Some(other) => Err(Self::arg_error(format!(
                "parameter 'scope' must be \"conversation\" (this conversation, the default) \
                 or \"all\" (all of your conversations), got \"{other}\""
            ))),
        }
    }

    async fn search(&self, args: SearchArgs, context: &ToolContext) -> Result<String, ToolOutcome> {
        let Some(conversation) = context.conversation_id else {
            return Err(ToolOutcome::error(format!(
                "Error: {NAME} has no conversation context: it only works inside a \
                 conversation turn."
            )));
        };
        let text = args.query;
        if text.trim().is_empty() {
            return Err(Self::arg_error(
                "parameter 'query' is empty; give the words to search for",
            ));
        }
        let since = match args.days {
            Some(days) => Some(since_days_ago(days, chrono::Utc::now()).map_err(Self::arg_error)?),
            None => None,
        };
        let limit = clamp_max_results(args.max_results);
        let scope = self.scope(args.scope, conversation).await?;
        let query = SearchQuery {
            text,
            scope,
            since,
            limit,
        };
        search_and_format(self.store.as_ref(), &query)
            .await
            .map_err(|e| ToolOutcome::error(format!("Error: {NAME}: searching failed: {e}")))
    }
}

#[async_trait]
impl TypedTool for SearchHistory {
    type Args = SearchArgs;

    fn name(&self) -> &str {
        NAME
    }

    fn traits(&self) -> ToolTraits {
        ToolTraits::READ_ONLY
    }

    fn description(&self) -> String {
        format!(
            "Search the stored history (user and assistant messages, tool calls and tool \
             results, including parts already summarized) for words, newest first. Each \
             match shows the conversation title, the time (UTC), the matching row marked \
             with → and one row before and after, each cut to 300 characters. \
             scope \"conversation\" (default) searches this conversation, \"all\" every \
             conversation of this user. Returns at most maxResults matches (default \
             {DEFAULT_MAX_RESULTS}, 1–{MAX_RESULTS})."
        )
    }

    fn unavailable(&self, context: &ToolContext) -> Option<ToolOutcome> {
        context.conversation_id.is_none().then(|| {
            ToolOutcome::error(format!(
                "Error: {NAME} has no conversation context: it only works inside a \
                 conversation turn."
            ))
        })
    }

    async fn run(&self, args: SearchArgs, context: &ToolContext) -> ToolOutcome {
        match self.search(args, context).await {
            Ok(text) => ToolOutcome::ok(text),
            Err(outcome) => outcome,
        }
    }
}
