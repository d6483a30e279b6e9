//! The HTTP client of streamable HTTP servers: the SDK's reqwest client (or its OAuth
//! client around it), watched for a response over the message limit and for a sign-in
//! the server no longer accepts. The SDK then only closes the connection ("Transport
//! closed"); the flags let the call say which was the reason.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use futures::StreamExt;
use futures::stream::BoxStream;
use reqwest::header::{HeaderName, HeaderValue};
use rmcp::model::ClientJsonRpcMessage;
use rmcp::transport::streamable_http_client::{
    SseError, StreamableHttpClient, StreamableHttpError, StreamableHttpPostResponse,
    StreamableHttpResponseLimits,
};

/// The flags a watched client sets.
#[derive(Clone, Default)]
pub(crate) struct Watch {
    /// A response broke a size limit.
    pub(crate) oversized: Arc<AtomicBool>,
    /// The server refused the sign-in even after a refresh (or there was none).
    pub(crate) auth_lost: Arc<AtomicBool>,
}

/// An SDK client (`inner`), setting `oversized` when a response breaks a limit and
/// `auth_lost` when the server asks for a sign-in.
#[derive(Clone)]
pub(crate) struct WatchedClient<C = reqwest::Client> {
    inner: C,
    oversized: Arc<AtomicBool>,
    auth_lost: Arc<AtomicBool>,
}

impl<C> WatchedClient<C> {
    /// `inner`, watched with `watch`'s flags.
    pub(crate) fn new(inner: C, watch: &Watch) -> Self {
        Self {
            inner,
            oversized: Arc::clone(&watch.oversized),
            auth_lost: Arc::clone(&watch.auth_lost),
        }
    }

    /// `stream`, setting the flag when an event is over the limit.
    fn watch<T: Send + 'static>(
        &self,
        stream: BoxStream<'static, Result<T, SseError>>,
    ) -> BoxStream<'static, Result<T, SseError>> {
        let oversized = Arc::clone(&self.oversized);
        stream
            .inspect(move |item| {
                // The SDK's error type for it is private: its message is what shows.
                if let Err(error) = item
                    && error.to_string().contains("exceeded the maximum size")
                {
                    oversized.store(true, Ordering::SeqCst);
                }
            })
            .boxed()
    }

    /// `response`, watched; an error over a limit or a refused sign-in sets its flag.
    fn watched<E: std::error::Error + Send + Sync + 'static>(
        &self,
        response: Result<StreamableHttpPostResponse, StreamableHttpError<E>>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<E>> {
        self.note_auth(&response);
        match response {
            Ok(StreamableHttpPostResponse::Sse(stream, session)) => {
                Ok(StreamableHttpPostResponse::Sse(self.watch(stream), session))
            }
            Err(error @ StreamableHttpError::ResponseBodyTooLarge { .. }) => {
                self.oversized.store(true, Ordering::SeqCst);
                Err(error)
            }
            other => other,
        }
    }

    /// Sets `auth_lost` when `result` says the server wants a (new) sign-in.
    fn note_auth<T, E: std::error::Error + Send + Sync + 'static>(
        &self,
        result: &Result<T, StreamableHttpError<E>>,
    ) {
        if matches!(
            result,
            Err(StreamableHttpError::AuthRequired(_) | StreamableHttpError::Auth(_))
        ) {
            self.auth_lost.store(true, Ordering::SeqCst);
        }
    }
}

impl<C> StreamableHttpClient for WatchedClient<C>
where
    C: StreamableHttpClient + Clone + Send + Sync + 'static,
{
    type Error = C::Error;

    async fn post_message(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default(),
        )
        .await
    }

    async fn post_message_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let mut limits = StreamableHttpResponseLimits::default();
        limits.max_sse_event_size = max_sse_event_size;
        self.post_message_with_response_limits(
            uri,
            message,
            session_id,
            auth_header,
            custom_headers,
            limits,
        )
        .await
    }

    async fn post_message_with_response_limits(
        &self,
        uri: Arc<str>,
        message: ClientJsonRpcMessage,
        session_id: Option<Arc<str>>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        limits: StreamableHttpResponseLimits,
    ) -> Result<StreamableHttpPostResponse, StreamableHttpError<Self::Error>> {
        let response = self
            .inner
            .post_message_with_response_limits(
                uri,
                message,
                session_id,
                auth_header,
                custom_headers,
                limits,
            )
            .await;
        self.watched(response)
    }

    async fn delete_session(
        &self,
        uri: Arc<str>,
        session_id: Arc<str>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<(), StreamableHttpError<Self::Error>> {
        let result = self
            .inner
            .delete_session(uri, session_id, auth_header, custom_headers)
            .await;
        self.note_auth(&result);
        result
    }

    async fn get_stream(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, SseError>>,
        StreamableHttpError<Self::Error>,
    > {
        self.get_stream_with_max_sse_event_size(
            uri,
            session_id,
            last_event_id,
            auth_header,
            custom_headers,
            StreamableHttpResponseLimits::default().max_sse_event_size,
        )
        .await
    }

    async fn get_stream_with_max_sse_event_size(
        &self,
        uri: Arc<str>,
        session_id: Option<Arc<str>>,
        last_event_id: Option<String>,
        auth_header: Option<String>,
        custom_headers: HashMap<HeaderName, HeaderValue>,
        max_sse_event_size: usize,
    ) -> Result<
        BoxStream<'static, Result<sse_stream::Sse, SseError>>,
        StreamableHttpError<Self::Error>,
    > {
        let stream = self
            .inner
            .get_stream_with_max_sse_event_size(
                uri,
                session_id,
                last_event_id,
                auth_header,
                custom_headers,
                max_sse_event_size,
            )
            .await;
        self.note_auth(&stream);
        Ok(self.watch(stream?))
    }
}
