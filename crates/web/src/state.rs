//! What every handler shares.

use std::sync::Arc;

use smallebot_application::ConversationService;
use smallebot_application::events::QueueLimits;
use smallebot_application::pipeline::ServedSessions;
use smallebot_application::ports::{
    AgentDirectory, ConversationRewind, MetricsExport, UserMcpOffers, UserMcpServers,
};
use tokio::sync::Semaphore;

use crate::confirm::{SharedConfirmer, WebConfirmer};
use crate::elicit::{SharedElicitor, WebElicitor};
use crate::keep_alive::{KEEP_ALIVE_EVERY, Ticks};
use crate::login_limit::LoginLimiter;
use crate::render_pool::{RenderPool, default_places};
use crate::users::{TokenUsers, UserServices, UserSkills};

/// The service the routes drive, and whose conversations they show.
#[derive(Clone)]
pub struct WebState {
    pub(crate) service: Arc<ConversationService>,
    pub(crate) user_name: Arc<str>,
    pub(crate) stream_queue: QueueLimits,
    pub(crate) allowed_hosts: Arc<[String]>,
    pub(crate) confirmer: Option<SharedConfirmer>,
    /// Asks MCP servers' forms on the page (none: the elicitation route answers 404).
    pub(crate) elicitor: Option<SharedElicitor>,
    pub(crate) users: Option<Arc<dyn TokenUsers>>,
    pub(crate) per_user: Option<Arc<dyn UserServices>>,
    /// Failed sign-ins by client address.
    pub(crate) login_limit: Arc<LoginLimiter>,
    /// Whether the page is served over https (the sign-in cookie is then `Secure`).
    pub(crate) https: bool,
    /// The skills a user sees (the host answers it; none: the skills routes answer 404).
    pub(crate) skills: Option<Arc<dyn UserSkills>>,
    /// The agent definitions a user sees (none: `GET /api/agents` lists none).
    pub(crate) agents: Option<Arc<dyn AgentDirectory>>,
    /// Rewinds conversations (the host answers it; none: the rewind route refuses).
    pub(crate) rewind: Option<Arc<dyn ConversationRewind>>,
    /// The MCP servers each user sees and connects (none: the list is empty).
    pub(crate) mcp: Option<Arc<dyn UserMcpServers>>,
    /// Their resources and prompts (none: the lists are empty).
    pub(crate) mcp_offers: Option<Arc<dyn UserMcpOffers>>,
    /// Places for turns being started (see [`WebState::concurrent_turn_starts`]).
    pub(crate) turn_starts: Arc<Semaphore>,
    /// Places for Markdown renders (see [`WebState::concurrent_renders`]).
    pub(crate) renders: RenderPool,
    pub(crate) metrics: Option<Arc<dyn MetricsExport>>,
    pub(crate) metrics_token: Option<Arc<str>>,
    /// The keep-alive tick all event streams share.
    pub(crate) keep_alive: Arc<Ticks>,
    /// The conversations' sessions (their `SessionStart` and `SessionEnd` hooks).
    pub(crate) sessions: Arc<ServedSessions>,
}

impl WebState {
    /// Serves `user_name`'s conversations through `service` (the user of every request
    /// until [`users`](Self::users) are given).
    pub fn new(service: Arc<ConversationService>, user_name: &str) -> Self {
        Self {
            service,
            user_name: Arc::from(user_name),
            stream_queue: QueueLimits {
                events: crate::STREAM_QUEUE_EVENTS,
                bytes: crate::STREAM_QUEUE_BYTES,
            },
            allowed_hosts: Arc::from(Vec::new()),
            confirmer: None,
            elicitor: None,
            users: None,
            per_user: None,
            skills: None,
            agents: None,
            rewind: None,
            mcp: None,
            mcp_offers: None,
            turn_starts: Arc::new(Semaphore::new(default_turn_starts())),
            renders: RenderPool::new(default_places()),
            metrics: None,
            metrics_token: None,
            keep_alive: Ticks::new(KEEP_ALIVE_EVERY),
            login_limit: Arc::default(),
            https: false,
            sessions: Arc::default(),
        }
    }

    /// Answers only requests whose `Host` is one of `hosts` (`name:port`, as browsers
    /// send it) and whose `Origin`, when sent, is `http(s)://` one of them; others get
    /// `403`. Without hosts nothing is checked (for an application that mounts the
    /// router behind its own checks). See [`hosts_for`](crate::hosts_for).
    #[must_use]
    pub fn allow_hosts(mut self, hosts: impl IntoIterator<Item = String>) -> Self {
        let hosts: Vec<String> = hosts.into_iter().map(|h| h.to_ascii_lowercase()).collect();
        self.allowed_hosts = Arc::from(hosts);
        self
    }

    /// Says the page is served over https (a reverse proxy with a certificate in
    /// front of it): the sign-in cookie is then always `Secure`. Without it the cookie
    /// is `Secure` when the request says it came over https (`Origin: https://…` or
    /// `X-Forwarded-Proto: https`).
    #[must_use]
    pub fn https(mut self, https: bool) -> Self {
        self.https = https;
        self
    }

    /// Requires a user's token on every API request (see [`crate::auth`]); each user
    /// sees only their own conversations. Without users, every request is the local
    /// user's (for loopback).
    #[must_use]
    pub fn users(mut self, users: Arc<dyn TokenUsers>) -> Self {
        self.users = Some(users);
        self
    }

    /// Sends each user's requests to their own service (for per-user workspaces);
    /// without, every request goes to the one given to [`WebState::new`]. All services
    /// must share one store.
    #[must_use]
    pub fn per_user_services(mut self, services: Arc<dyn UserServices>) -> Self {
        self.per_user = Some(services);
        self
    }

    /// Answers `GET /api/skills` and `GET /api/skills/{name}` from `skills` (without,
    /// the list is empty and every name `404`).
    #[must_use]
    pub fn skills(mut self, skills: Arc<dyn UserSkills>) -> Self {
        self.skills = Some(skills);
        self
    }

    /// Answers `POST /api/conversations/{id}/rewind` with `rewind` (without, it is
    /// refused: the server keeps no checkpoints).
    #[must_use]
    pub fn rewind(mut self, rewind: Arc<dyn ConversationRewind>) -> Self {
        self.rewind = Some(rewind);
        self
    }

    /// Answers `GET /api/mcp/servers`, `POST /api/mcp/servers/{name}/connect` and the
    /// sign-in's way back, `GET /api/mcp/callback`, from `mcp` (without, the list is
    /// empty and nothing connects).
    #[must_use]
    pub fn mcp(mut self, mcp: Arc<dyn UserMcpServers>) -> Self {
        self.mcp = Some(mcp);
        self
    }

    /// Answers `GET /api/mcp/resources`, `GET /api/mcp/prompts`, `POST
    /// /api/mcp/resources/read` and `POST /api/mcp/prompts/{server}/{name}` from
    /// `offers` (without, the lists are empty and nothing is read).
    #[must_use]
    pub fn mcp_offers(mut self, offers: Arc<dyn UserMcpOffers>) -> Self {
        self.mcp_offers = Some(offers);
        self
    }

    /// Answers `GET /api/agents` from `agents` (without, the list is empty).
    #[must_use]
    pub fn agents(mut self, agents: Arc<dyn AgentDirectory>) -> Self {
        self.agents = Some(agents);
        self
    }

    /// Serves `metrics` at `GET /metrics` (to loopback; beyond it with `token` only,
    /// see the route), shows them the service's events and counts event-stream
    /// subscribers into them. (Services built per user are shown to them by whoever
    /// builds those.)
    #[must_use]
    pub fn metrics(mut self, metrics: Arc<dyn MetricsExport>, token: Option<String>) -> Self {
        self.service.observe_events(Arc::clone(&metrics) as _);
        self.metrics = Some(metrics);
        self.metrics_token = token.map(Arc::from);
        self
    }

    /// Asks on the page through `confirmer` (the one given to the agent's
    /// `ExecuteCommand`): its questions appear in the event streams and are answered
    /// with `POST …/confirmation`. Without one, that route answers `404`.
    #[must_use]
    pub fn confirmations(mut self, confirmer: Arc<WebConfirmer>) -> Self {
        self.confirmer = Some(confirmer);
        self
    }

    /// Asks MCP servers' forms on the page through `elicitor` (the one the MCP servers
    /// were given): they appear in the event streams as `elicit` events and are
    /// answered with `POST …/elicitation`. Without one, that route answers `404`.
    #[must_use]
    pub fn elicitations(mut self, elicitor: Arc<WebElicitor>) -> Self {
        self.elicitor = Some(elicitor);
        self
    }

    /// How many undelivered events one event stream may have before it is told to
    /// reload (default [`STREAM_QUEUE_EVENTS`](crate::STREAM_QUEUE_EVENTS)).
    #[must_use]
    pub fn stream_queue(mut self, events: usize) -> Self {
        self.stream_queue.events = events.max(1);
        self
    }

    /// How many bytes of undelivered answer text one event stream may have before it
    /// is told to reload (default [`STREAM_QUEUE_BYTES`](crate::STREAM_QUEUE_BYTES)).
    #[must_use]
    pub fn stream_queue_bytes(mut self, bytes: usize) -> Self {
        self.stream_queue.bytes = bytes.max(1);
        self
    }

    /// How many turns may be starting at once (at least 1; by default
    /// [`TURN_STARTS_PER_CPU`](crate::TURN_STARTS_PER_CPU) for each CPU the process may
    /// use). A start —
    /// sending a message, editing one, regenerating an answer — holds its place from
    /// the request until the service says its turn is stored, or until the
    /// conversation's first event when that comes sooner (`CompressionStarted` when it
    /// compresses first, so a summary's model call never holds a place). Further starts wait in order. Under a burst this keeps the turns
    /// already running from queueing behind hundreds of starts; a client that goes away
    /// while waiting starts nothing.
    #[must_use]
    pub fn concurrent_turn_starts(mut self, starts: usize) -> Self {
        self.turn_starts = Arc::new(Semaphore::new(starts.max(1)));
        self
    }

    /// How many Markdown renders (`POST /api/markdown`, the answers of a timeline) run
    /// at once, on threads apart from those that answer requests (at least 1; by
    /// default half the CPUs the process may use). Further renders wait in order; one
    /// whose client goes away stops.
    #[must_use]
    pub fn concurrent_renders(mut self, renders: usize) -> Self {
        self.renders = RenderPool::new(renders);
        self
    }

    /// Starts no more turns, for a shutdown: from now on sending a message, editing one
    /// and regenerating an answer answer `503` (every clone of this state and the
    /// router built from it alike). The turns already started run on.
    pub fn stop_taking_turns(&self) {
        self.turn_starts.close();
    }

    /// Ends the sessions of the conversations that ran a turn since the server started
    /// (their `SessionEnd` hooks, reason `shutdown`), once the server stops.
    pub async fn end_sessions(&self) {
        self.sessions.end_all().await;
    }
}

/// [`TURN_STARTS_PER_CPU`](crate::TURN_STARTS_PER_CPU) for each CPU this process may
/// use (one when that is unknown).
fn default_turn_starts() -> usize {
    std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
        * crate::TURN_STARTS_PER_CPU
}
