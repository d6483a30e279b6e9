//! Running a turn, a rewrite or a compaction and following it: its events printed as
//! they come, Ctrl+C cancelling it, command confirmations answered, the status line
//! under the stream on a terminal, the open answer lines laid out again when the
//! terminal is resized.

use std::future::Future;
use std::io::Write;
use std::sync::Arc;
use std::time::Instant;

use smallebot_application::{Event, EventSubscription, PipelineError, SendOptions, TurnHandle};
use smallebot_core::ids::ConversationId;
use tokio::sync::mpsc;
use tokio::task::JoinHandle;

use super::super::confirm::{Asked, ask};
use super::super::elicit::ask_form;
use super::super::input::LineSource;
use super::super::status_line::{StatusLine, terminal_width};
use super::Repl;
use crate::error::TerminalError;
use crate::render::{Resizes, Style};

/// The events a task is followed by, and how far they were printed: a turn followed
/// first on a subscription of the REPL's own, then on its handle's events (which begin
/// before the turn was stored), prints each event once.
struct Follow {
    events: EventSubscription,
    /// The `seq` of the last event printed (events are numbered per conversation).
    printed: u64,
}

impl Follow {
    /// Follows `events` from their start.
    fn new(events: EventSubscription) -> Self {
        Self { events, printed: 0 }
    }

    /// Follows `events` from here on: the events already printed are skipped.
    fn continued_by(self, events: EventSubscription) -> Self {
        Self {
            events,
            printed: self.printed,
        }
    }

    /// The next event not printed yet.
    async fn recv(&mut self) -> Option<Event> {
        loop {
            let event = self.events.recv().await?;
            if self.take(&event) {
                return Some(event);
            }
        }
    }

    /// The next event not printed yet, if one is queued.
    fn try_recv(&mut self) -> Option<Event> {
        loop {
            let event = self.events.try_recv()?;
            if self.take(&event) {
                return Some(event);
            }
        }
    }

    /// Whether `event` is new (and from now on counts as printed).
    fn take(&mut self, event: &Event) -> bool {
        if event.seq <= self.printed {
            return false;
        }
        self.printed = event.seq;
        true
    }
}

impl<W: Write> Repl<W> {
    /// Sends `text` as a turn, with the files it mentions (`@path`), and follows it to
    /// its end. The service names a new conversation (a title asked for beside its
    /// first turn), so nothing here does.
    pub(super) async fn turn<S: LineSource>(
        &mut self,
        text: String,
        input: &mut S,
    ) -> Result<(), TerminalError> {
        // `@path` files are read and checked before anything is stored.
        let Some(files) = self.mentioned_files(&text).await? else {
            return Ok(());
        };
        let conversation = self.open_conversation().await?;
        let Some(attachments) = self.upload_files(conversation, files).await? else {
            return Ok(());
        };
        let options = SendOptions {
            title: true,
            attachments,
            ..SendOptions::default()
        };
        let service = Arc::clone(&self.service);
        let starting = async move { service.start(conversation, &text, options).await };
        self.follow_turn(conversation, starting, input).await
    }

    /// Starts a turn with `starting` (a send, `/edit`'s or `/retry`'s start) and follows
    /// it to its end. Until the turn is stored — a compression before it may take a
    /// while, with its spinner — its progress comes from a subscription of the REPL's
    /// own; from then on from the turn's handle, without the events already printed.
    pub(super) async fn follow_turn<S: LineSource>(
        &mut self,
        conversation: ConversationId,
        starting: impl Future<Output = Result<TurnHandle, PipelineError>> + Send + 'static,
        input: &mut S,
    ) -> Result<(), TerminalError> {
        let mut storing = Follow::new(self.service.subscribe(conversation));
        let starting = tokio::spawn(starting);
        // One status line for both stages: the answer may already flow when the turn's
        // handle comes, and a fresh "waiting" line would be drawn over it.
        let mut status = self.status_line(true);
        let handle = match self
            .drive(conversation, &mut storing, starting, input, &mut status)
            .await?
        {
            Ok(handle) => handle,
            Err(err) => return self.say(&format!("error: {err}")),
        };
        // Dropped, the title's task runs on; the turn's end is followed here.
        let TurnHandle { events, end, .. } = handle;
        let mut turn = storing.continued_by(events);
        if let Err(err) = self
            .drive(conversation, &mut turn, end, input, &mut status)
            .await?
        {
            self.say(&format!("error: {err}"))?;
        }
        Ok(())
    }

    pub(super) async fn compact<S: LineSource>(
        &mut self,
        focus: Option<String>,
        input: &mut S,
    ) -> Result<(), TerminalError> {
        let Some(conversation) = self.conversation else {
            return self.say("nothing to compact: this conversation has no messages yet");
        };
        let mut events = Follow::new(self.service.subscribe(conversation));
        let service = Arc::clone(&self.service);
        let task =
            tokio::spawn(async move { service.compact(conversation, focus.as_deref()).await });
        let mut status = self.status_line(false);
        // Success and failure alike were printed from the compression's events.
        if let Err(err) = self
            .drive(conversation, &mut events, task, input, &mut status)
            .await?
        {
            self.say(&format!("error: {err}"))?;
        }
        Ok(())
    }

    /// The status line for work that starts now (`waiting`: a model request is on the
    /// way from the start).
    fn status_line(&self, waiting: bool) -> StatusLine {
        let style = Style {
            ansi: self.printer.ansi(),
        };
        StatusLine::new(self.terminal, style, waiting, Instant::now())
    }

    /// Waits for `task` while printing `conversation`'s events from `events`; Ctrl+C
    /// cancels the conversation's turn. Input is not read meanwhile, except to answer a
    /// command confirmation or an MCP server's form. On a terminal `status` says what the work is doing and is
    /// wiped before anything else is printed.
    async fn drive<T, S: LineSource>(
        &mut self,
        conversation: ConversationId,
        events: &mut Follow,
        mut task: JoinHandle<T>,
        input: &mut S,
        status: &mut StatusLine,
    ) -> Result<T, TerminalError> {
        let mut width = if self.terminal { terminal_width() } else { 80 };
        // A resize re-flows the open answer lines and the status line.
        let mut resizes = Resizes::watch(self.terminal);
        let mut tick = tokio::time::interval(std::time::Duration::from_millis(100));
        let result = loop {
            tokio::select! {
                Some(event) = events.recv() => {
                    status.observe(&event.kind, Instant::now());
                    status.wipe(self.printer.out())?;
                    self.printer.print(&event)?;
                    status.draw(self.printer.out(), Instant::now(), width)?;
                }
                joined = &mut task => {
                    status.wipe(self.printer.out())?;
                    while let Some(event) = events.try_recv() {
                        status.observe(&event.kind, Instant::now());
                        self.printer.print(&event)?;
                    }
                    break joined;
                }
                Some(()) = self.interrupts.recv() => {
                    self.service.cancel(conversation);
                }
                Some(request) = next_request(&mut self.confirmations) => {
                    status.pause(self.printer.out())?;
                    // "Always" answers are kept by the agent's permission gate, which
                    // then does not ask again.
                    let asked = ask(request, input, self.printer.out(), &mut self.interrupts);
                    if asked.await? == Asked::Interrupted {
                        self.service.cancel(conversation);
                    }
                }
                Some(request) = next_request(&mut self.forms) => {
                    status.pause(self.printer.out())?;
                    let asked = ask_form(request, input, self.printer.out(), &mut self.interrupts);
                    if asked.await? == Asked::Interrupted {
                        self.service.cancel(conversation);
                    }
                }
                Some(()) = resizes.next() => {
                    width = terminal_width();
                    status.wipe(self.printer.out())?;
                    self.printer.resized()?;
                    status.draw(self.printer.out(), Instant::now(), width)?;
                }
                _ = tick.tick(), if status.visible() => {
                    status.draw(self.printer.out(), Instant::now(), width)?;
                }
            }
        };
        result.map_err(|source| TerminalError::TaskJoin {
            what: "the turn",
            source,
        })
    }
}

/// The next request of a channel; never ready when there is none.
async fn next_request<T>(requests: &mut Option<mpsc::Receiver<T>>) -> Option<T> {
    match requests {
        Some(requests) => requests.recv().await,
        None => std::future::pending().await,
    }
}
