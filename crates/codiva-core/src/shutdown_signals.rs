//! The signals that ask a codiva front end to end gracefully (sessions stopped and reaped,
//! state written, terminal restored): SIGTERM and SIGHUP, and SIGINT where the front end has no
//! use of its own for Ctrl+C.

use tokio::signal::unix::{Signal, SignalKind, signal};

pub struct ShutdownSignals {
    term: Option<Signal>,
    hup: Option<Signal>,
    int: Option<Signal>,
}

impl ShutdownSignals {
    /// SIGTERM and SIGHUP; with `interrupt`, SIGINT too.
    pub fn new(interrupt: bool) -> Self {
        ShutdownSignals {
            term: signal(SignalKind::terminate()).ok(),
            hup: signal(SignalKind::hangup()).ok(),
            int: interrupt
                .then(|| signal(SignalKind::interrupt()).ok())
                .flatten(),
        }
    }

    /// Waits for the next one.
    pub async fn recv(&mut self) {
        async fn wait(signal: &mut Option<Signal>) {
            match signal {
                Some(signal) => {
                    signal.recv().await;
                }
                None => std::future::pending().await,
            }
        }
        tokio::select! {
            _ = wait(&mut self.term) => {}
            _ = wait(&mut self.hup) => {}
            _ = wait(&mut self.int) => {}
        }
    }
}
