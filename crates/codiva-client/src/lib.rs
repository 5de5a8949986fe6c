//! The client seam: a front end talks to a session manager only through a [`Client`], whose
//! messages are the protocol's types (`codiva_protocol`). Behind it is a [`Backend`]: the
//! manager in the same process (the binary implements the trait over `codiva_core`'s
//! `Manager`), or a byte stream speaking the JSON-RPC that `codiva serve` speaks
//! ([`stream`]: a child's stdio, later a socket).
//!
//! * Requests: [`Client::call`], typed by the protocol's method table
//!   (`codiva_protocol::methods::request::*`): `call::<request::SessionList>(NoParams {})`.
//! * Events: [`Client::subscribe`] gives the manager's snapshot and a [`Subscription`] of the
//!   events after it, in `seq` order; a gap (events lost on the way) makes the subscription take
//!   a fresh `manager/snapshot` and hand it over as [`Update::Resync`].

mod notification;
pub mod stream;
mod subscription;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use codiva_protocol::error::{ErrorBody, ErrorData, NO_SUCH_SESSION, REFUSED};
use codiva_protocol::manager::SequencedEvent;
use codiva_protocol::{ClientRequest, Request};
use serde_json::Value;
use tokio::sync::broadcast;

pub use notification::sequenced_event;
pub use subscription::{Subscription, Update};

/// A boxed future, for the object-safe [`Backend`].
pub type BoxFuture<T> = Pin<Box<dyn Future<Output = T> + Send + 'static>>;

/// What a [`Client`] stands on: something that answers protocol requests and broadcasts the
/// manager's sequenced events.
pub trait Backend: Send + Sync + 'static {
    /// One request; its result as the method table's result type, encoded as JSON.
    fn request(&self, request: ClientRequest) -> BoxFuture<Result<Value, ClientError>>;
    /// The manager's events from now on, each with its `seq`. A receiver that lags is told
    /// (`RecvError::Lagged`); a closed one means the manager is gone.
    fn events(&self) -> broadcast::Receiver<SequencedEvent>;
}

/// Why a call failed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ClientError {
    /// The manager answered with an error (the protocol's codes and data).
    #[error("{}", .0.message)]
    Server(Box<ErrorBody>),
    /// The manager is gone (the connection closed, the server exited).
    #[error("the session manager is gone")]
    Disconnected,
    /// An answer that does not follow the protocol.
    #[error("protocol error: {0}")]
    Protocol(String),
}

impl ClientError {
    /// The refusal, when the manager refused the request (`-32002`).
    pub fn refusal(&self) -> Option<&codiva_protocol::error::RefusalData> {
        match self {
            ClientError::Server(body) => match &**body {
                ErrorBody {
                    code: REFUSED,
                    data: Some(ErrorData::Refusal(refusal)),
                    ..
                } => Some(refusal),
                _ => None,
            },
            _ => None,
        }
    }

    /// The session id no session has, for `-32001`.
    pub fn no_such_session(&self) -> Option<&str> {
        match self {
            ClientError::Server(body) => match &**body {
                ErrorBody {
                    code: NO_SUCH_SESSION,
                    data: Some(ErrorData::NoSuchSession(data)),
                    ..
                } => Some(&data.session_id),
                _ => None,
            },
            _ => None,
        }
    }

    /// The server's code (`None` for a client-side failure).
    pub fn code(&self) -> Option<i64> {
        match self {
            ClientError::Server(body) => Some(body.code),
            _ => None,
        }
    }
}

/// A cheap handle on one session manager.
#[derive(Clone)]
pub struct Client {
    backend: Arc<dyn Backend>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client").finish_non_exhaustive()
    }
}

impl Client {
    pub fn new(backend: Arc<dyn Backend>) -> Self {
        Client { backend }
    }

    /// One request of the method table: `call::<request::SessionSend>(params)`.
    pub async fn call<M: Request>(&self, params: M::Params) -> Result<M::Result, ClientError> {
        let result = self.request(M::request(params)).await?;
        serde_json::from_value(result).map_err(|err| {
            ClientError::Protocol(format!("{}: unexpected result: {err}", M::METHOD))
        })
    }

    /// Sends `request` as it is; its result is the method table's result type, as JSON.
    pub async fn request(&self, request: ClientRequest) -> Result<Value, ClientError> {
        self.backend.request(request).await
    }

    /// The manager's sessions now, and the events after them.
    pub async fn subscribe(
        &self,
    ) -> Result<(codiva_protocol::manager::ManagerSnapshot, Subscription), ClientError> {
        Subscription::start(self.clone()).await
    }

    /// The manager's events as they come, unordered checks left to the caller (a gap is not
    /// resynced); `RecvError::Closed` once the manager is gone. Most callers want
    /// [`Client::subscribe`].
    pub fn raw_events(&self) -> broadcast::Receiver<SequencedEvent> {
        self.backend.events()
    }
}
