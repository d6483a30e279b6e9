//! A connection hyper serves until a response takes the socket for itself
//! ([`Detach::take`]): from then on hyper reads the end of the stream and its writes go
//! nowhere, so its connection (and its buffers) ends while the socket lives on.

use std::io;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::task::{Context, Poll};

use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;

/// The socket, while hyper has it.
type Slot = Arc<Mutex<Option<TcpStream>>>;

/// The connection as hyper sees it.
#[derive(Debug)]
pub(super) struct Detachable(Slot);

/// Takes the socket away from hyper (one per connection, cloned into its requests).
#[derive(Debug, Clone)]
pub(super) struct Detach(Slot);

impl Detachable {
    /// `stream`, served by hyper until [`Detach::take`]; with its handle.
    pub(super) fn new(stream: TcpStream) -> (Self, Detach) {
        let slot: Slot = Arc::new(Mutex::new(Some(stream)));
        (Self(Arc::clone(&slot)), Detach(slot))
    }
}

impl Detach {
    /// The socket, out of hyper's hands; `None` when it was taken already.
    pub(super) fn take(&self) -> Option<TcpStream> {
        lock(&self.0).take()
    }
}

/// The slot; a poisoned lock (a panic while it was held) is taken as it is: it only
/// holds the socket or nothing.
fn lock(slot: &Slot) -> MutexGuard<'_, Option<TcpStream>> {
    slot.lock().unwrap_or_else(PoisonError::into_inner)
}

impl AsyncRead for Detachable {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        match lock(&self.0).as_mut() {
            Some(stream) => Pin::new(stream).poll_read(cx, buf),
            // Taken: the end of the stream (nothing filled).
            None => Poll::Ready(Ok(())),
        }
    }
}

impl AsyncWrite for Detachable {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        match lock(&self.0).as_mut() {
            Some(stream) => Pin::new(stream).poll_write(cx, buf),
            // Taken: what hyper still writes (the placeholder answer) goes nowhere.
            None => Poll::Ready(Ok(buf.len())),
        }
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        match lock(&self.0).as_mut() {
            Some(stream) => Pin::new(stream).poll_write_vectored(cx, bufs),
            None => Poll::Ready(Ok(bufs.iter().map(|b| b.len()).sum())),
        }
    }

    fn is_write_vectored(&self) -> bool {
        true
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match lock(&self.0).as_mut() {
            Some(stream) => Pin::new(stream).poll_flush(cx),
            None => Poll::Ready(Ok(())),
        }
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        match lock(&self.0).as_mut() {
            Some(stream) => Pin::new(stream).poll_shutdown(cx),
            // Taken: the socket is not hyper's to close.
            None => Poll::Ready(Ok(())),
        }
    }
}
