//! The signals that ask a codiva front end to end gracefully (sessions stopped and reaped,
//! state written, terminal restored): SIGTERM and SIGHUP, and SIGINT where the front end has no
//! use of its own for Ctrl+C — or, for a front end that must never die with an agent still
//! working (`codiva exec`), every signal whose default action would end the process.

use std::task::Poll;

use tokio::signal::unix::{Signal, SignalKind, signal};

pub struct ShutdownSignals {
    signals: Vec<(i32, Signal)>,
}

/// Every catchable signal whose default action ends the process, except SIGPIPE: Rust ignores
/// it, so a closed stdout is an error on write, which the front ends handle.
const TERMINATING: &[i32] = &[
    libc::SIGHUP,
    libc::SIGINT,
    libc::SIGQUIT,
    libc::SIGTERM,
    libc::SIGUSR1,
    libc::SIGUSR2,
    libc::SIGALRM,
    libc::SIGVTALRM,
    libc::SIGPROF,
    libc::SIGXCPU,
    libc::SIGXFSZ,
];

impl ShutdownSignals {
    /// SIGTERM and SIGHUP; with `interrupt`, SIGINT too.
    pub fn new(interrupt: bool) -> Self {
        let mut numbers = vec![libc::SIGTERM, libc::SIGHUP];
        if interrupt {
            numbers.push(libc::SIGINT);
        }
        Self::of(&numbers)
    }

    /// Every signal that would otherwise end the process (SIGINT included).
    pub fn all_terminating() -> Self {
        Self::of(TERMINATING)
    }

    fn of(numbers: &[i32]) -> Self {
        ShutdownSignals {
            signals: numbers
                .iter()
                .filter_map(|&number| {
                    signal(SignalKind::from_raw(number))
                        .ok()
                        .map(|signal| (number, signal))
                })
                .collect(),
        }
    }

    /// Waits for the next one; returns its number.
    pub async fn recv(&mut self) -> i32 {
        std::future::poll_fn(|cx| {
            for (number, signal) in &mut self.signals {
                if let Poll::Ready(Some(())) = signal.poll_recv(cx) {
                    return Poll::Ready(*number);
                }
            }
            Poll::Pending
        })
        .await
    }
}

/// The conventional exit status of a process ended by `signal`: 128 + its number.
pub fn exit_status(signal: i32) -> u8 {
    u8::try_from(128 + signal).unwrap_or(u8::MAX)
}

/// `SIGTERM`, `SIGHUP`, … for messages; `signal N` for the others.
pub fn name(signal: i32) -> String {
    let known = [
        (libc::SIGHUP, "SIGHUP"),
        (libc::SIGINT, "SIGINT"),
        (libc::SIGQUIT, "SIGQUIT"),
        (libc::SIGTERM, "SIGTERM"),
        (libc::SIGUSR1, "SIGUSR1"),
        (libc::SIGUSR2, "SIGUSR2"),
        (libc::SIGALRM, "SIGALRM"),
    ];
    known
        .iter()
        .find(|(number, _)| *number == signal)
        .map_or_else(
            || format!("signal {signal}"),
            |(_, name)| (*name).to_owned(),
        )
}

/// SIGINT's number, for front ends that treat Ctrl+C apart.
pub const SIGINT: i32 = libc::SIGINT;
