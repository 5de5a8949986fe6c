//! The client seam's in-process transport: a `codiva_client::Client` over a `Manager` in this
//! process, answering each request with the same handlers as `codiva serve` (so the TUI and
//! `codiva exec` see exactly what a client of `serve` sees) and passing the manager's
//! sequenced events as they are (no encoding).

use std::sync::Arc;

use codiva_client::{Backend, BoxFuture, Client, ClientError};
use codiva_core::manager::Manager;
use codiva_protocol::ClientRequest;
use codiva_protocol::manager::SequencedEvent;

use crate::methods::Host;
use serde_json::Value;
use tokio::sync::broadcast;

struct InProcess {
    manager: Manager,
    host: Arc<Host>,
}

/// A client of `manager`.
pub fn client(manager: Manager, host: Host) -> Client {
    Client::new(Arc::new(InProcess {
        manager,
        host: Arc::new(host),
    }))
}

impl Backend for InProcess {
    fn request(&self, request: ClientRequest) -> BoxFuture<Result<Value, ClientError>> {
        let manager = self.manager.clone();
        let host = self.host.clone();
        Box::pin(async move {
            crate::methods::handle(&manager, &host, request)
                .await
                .map_err(|err| ClientError::Server(Box::new(err.into_body())))
        })
    }

    fn events(&self) -> broadcast::Receiver<SequencedEvent> {
        self.manager.subscribe_sequenced()
    }
}
