//! Model Context Protocol servers as tool providers, through the official SDK (`rmcp`):
//! the servers of mcp.json start in parallel ([`McpServers::start`]), each within its
//! startup timeout; one that fails leaves its tools out and a warning, never blocks.
//! Each tool joins the registry as [`McpTool`] named `{server}__{tool}`; a call checks
//! its arguments against the tool's schema, asks first when the tool is destructive
//! (or `confirm` says so), and restarts a server that stopped. Their resources, resource
//! templates and prompts are listed, read and got through [`McpServers`] too.
//!
//! A server's question during a call (`elicitation/create`) goes to the person who
//! runs the call's conversation through the front end given to
//! [`McpServers::set_elicitor`] (nobody by default: declined at once), within the
//! server's `elicitationTimeoutSeconds`; each answer is reported on the call
//! ([`ToolContext::elicitations`](smallebot_application::ports::ToolContext)) and noted
//! in its result. A request for a completion (sampling) is answered with the model given
//! to [`McpServers::set_sampler`] for a server with `"sampling": true`, billed to the
//! asking call's turn; refused otherwise.
//!
//! Remote servers may sign in with OAuth 2.1 through the SDK's auth support
//! ([`login`], sign-ins stored sealed per person with [`McpSignIns`]) or with client
//! credentials. A server marked `perUser` is connected by each web user of a shared
//! `serve` with their own sign-in ([`McpUsers`], [`McpServers::for_user`]); a user's
//! sign-ins are revoked when the user is removed ([`forget_user`]).

mod asking;
mod catalog;
mod client;
mod connect;
mod connection;
mod connection_auth;
mod content;
mod credentials;
mod elicit;
mod error;
mod http_client;
mod login;
mod names;
mod oauth;
mod per_user;
mod process;
mod requests;
mod revoke;
mod sampling;
mod schema;
mod settings;
mod start;
mod tool;
mod users;
mod users_offers;

pub use catalog::{
    McpPrompt, McpPromptArgument, McpPromptMessage, McpPromptRole, McpRequestError, McpResource,
    McpResourceContents, McpResourceTemplate, prompt_message_text,
};
pub use credentials::{McpSignIns, TokenKey};
pub use error::McpAuthError;
pub use login::{SignInState, SignedOut, login, logout, sign_in_state};
pub use revoke::forget_user;
pub use settings::{McpAuth, McpServerSettings, McpSettings, McpTransport, TOKEN_KEY_ENV};
pub use start::{McpServerStatus, McpServers, McpStartError};
pub use tool::McpTool;
pub use users::McpUsers;
