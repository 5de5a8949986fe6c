//! `codiva serve --listen`: the repository's daemon in the foreground. It runs the manager and
//! accepts any number of clients on a Unix socket (`crate::daemon` says where); each connection
//! speaks the serve protocol (`connection.rs`), and its closing never stops a session. It stops
//! — every agent stopped, the state written, the socket removed — on `daemon/shutdown`, SIGTERM,
//! SIGINT or SIGHUP, or by itself after `daemon_idle_exit` seconds with no agent working, no
//! prompt waiting and no client attached. The repository's lock keeps a second daemon (or
//! manager) out.
//!
//! A daemon nobody can reach is noticed: every [`SOCKET_CHECK`] it looks at its socket file
//! (one `stat`). Gone or replaced (a cleaner emptied the runtime directory, someone removed
//! it): with sessions working it binds the socket again, so their clients can come back; with
//! none working — or when the repository itself is gone — it stops as `codiva stop` would.
//!
//! Security: the socket's directory is 0700 and the socket 0600, and a connection whose peer
//! (SO_PEERCRED) is another user is refused with one JSON-RPC error line and closed.

use std::os::unix::fs::{DirBuilderExt, MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use codiva_core::manager::Manager;
use serde_json::Value;
use tokio::io::AsyncWriteExt;
use tokio::net::{UnixListener, UnixStream};
use tokio::sync::watch;

use crate::daemon::{self, LOCKED_STATUS, Place};
use codiva_server::rpc::{RpcError, error_response};
use codiva_server::{Connection, Ended, Host};

/// How long the answers a closing client still waits for get.
const CLIENT_DRAIN: Duration = Duration::from_secs(30);
/// How long the connections get to write their last messages when the daemon stops.
const CLOSE_GRACE: Duration = Duration::from_secs(2);
/// How often the daemon checks that its socket file is still the one it bound.
const SOCKET_CHECK: Duration = Duration::from_secs(2);

pub async fn run(cwd: PathBuf) -> ExitCode {
    let place = match daemon::place_for(&cwd).await {
        Ok(place) => place,
        Err(message) => {
            eprintln!("codiva: {message}");
            return ExitCode::FAILURE;
        }
    };
    crate::init_logging(Some(place.log.clone()));
    let started = match crate::bootstrap::start(place.root.clone(), daemon::DAEMON_HOLDER).await {
        Ok(started) => started,
        Err(err) => {
            eprintln!("codiva: {err}");
            return if err.locked {
                ExitCode::from(LOCKED_STATUS)
            } else {
                ExitCode::FAILURE
            };
        }
    };
    let manager = started.manager;
    let idle_exit = Duration::from_secs(started.config.daemon_idle_exit);
    let host = Arc::new(Host {
        warnings: started.warnings,
        config_path: started.config_path,
        ..Host::new(daemon::versions())
    });
    // The lock is ours: a socket file left by a dead daemon of this repository is stale.
    let bound = match bind(&place) {
        Ok(listener) => listener,
        Err(message) => {
            eprintln!("codiva: {message}");
            manager.shutdown().await;
            return ExitCode::FAILURE;
        }
    };
    tracing::info!(root = %place.root.display(), socket = %place.socket.display(), pid = std::process::id(), "daemon listening");
    eprintln!(
        "codiva: daemon {} (pid {}) for {} listening on {}",
        daemon::own_version(),
        std::process::id(),
        place.root.display(),
        place.socket.display()
    );
    let stopped_by = serve(bound, &manager, &host, &place, idle_exit).await;
    tracing::info!(signal = ?stopped_by, "daemon stopped");
    match stopped_by {
        None => ExitCode::SUCCESS,
        Some(signal) => ExitCode::from(codiva_os::shutdown_signals::exit_status(signal)),
    }
}

/// A bound socket and the identity (device, inode) of its file.
struct Bound {
    listener: UnixListener,
    file: (u64, u64),
}

/// The socket, in a directory only this user can enter.
fn bind(place: &Place) -> Result<Bound, String> {
    let Some(dir) = place.socket.parent() else {
        return Err(format!("no directory for {}", place.socket.display()));
    };
    private_dir(dir)?;
    match std::fs::remove_file(&place.socket) {
        Ok(()) => tracing::info!("removed a socket left by an earlier daemon"),
        Err(err) if err.kind() == std::io::ErrorKind::NotFound => {}
        Err(err) => return Err(format!("cannot remove {}: {err}", place.socket.display())),
    }
    let listener = UnixListener::bind(&place.socket)
        .map_err(|err| format!("cannot listen on {}: {err}", place.socket.display()))?;
    std::fs::set_permissions(&place.socket, std::fs::Permissions::from_mode(0o600))
        .map_err(|err| format!("cannot restrict {}: {err}", place.socket.display()))?;
    let file = file_id(&place.socket)
        .ok_or_else(|| format!("{} is gone right after binding it", place.socket.display()))?;
    Ok(Bound { listener, file })
}

/// The (device, inode) of the file at `path`, when there is one.
fn file_id(path: &Path) -> Option<(u64, u64)> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|meta| (meta.dev(), meta.ino()))
}

/// What the daemon does about a socket file that is no longer the one it bound.
#[derive(Debug, PartialEq, Eq)]
enum Unreachable {
    /// The file is still ours.
    Fine,
    /// Bind it again: sessions work, their clients must be able to come back.
    Rebind,
    /// Stop as `codiva stop` would: nothing works (or the repository is gone).
    Stop(&'static str),
}

fn on_socket_check(ours: bool, repo_exists: bool, working: bool) -> Unreachable {
    match (ours, repo_exists, working) {
        (_, false, _) => Unreachable::Stop("the repository is gone"),
        (true, true, _) => Unreachable::Fine,
        (false, true, true) => Unreachable::Rebind,
        (false, true, false) => Unreachable::Stop("its socket was removed"),
    }
}

/// Creates `dir` (0700) or checks that this user owns it, and makes it 0700.
fn private_dir(dir: &Path) -> Result<(), String> {
    let mut builder = std::fs::DirBuilder::new();
    builder.recursive(true).mode(0o700);
    builder
        .create(dir)
        .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    let meta = std::fs::symlink_metadata(dir)
        .map_err(|err| format!("cannot read {}: {err}", dir.display()))?;
    if !meta.is_dir() || meta.uid() != codiva_os::detach::effective_uid() {
        return Err(format!(
            "{} is not a directory of this user; remove it or set XDG_RUNTIME_DIR",
            dir.display()
        ));
    }
    std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o700))
        .map_err(|err| format!("cannot restrict {}: {err}", dir.display()))
}

/// Accepts clients until asked to stop (`None`), idle for `idle_exit` (`None`; zero: never) or
/// a signal (its number); then stops the manager and closes every connection.
async fn serve(
    bound: Bound,
    manager: &Manager,
    host: &Arc<Host>,
    place: &Place,
    idle_exit: Duration,
) -> Option<i32> {
    let mut signals = codiva_os::shutdown_signals::ShutdownSignals::new(true);
    let (stop_tx, stop_rx) = watch::channel(false);
    let clients = Arc::new(AtomicUsize::new(0));
    let mut connections = tokio::task::JoinSet::new();
    let mut idle_check = tokio::time::interval(
        (idle_exit / 4).clamp(Duration::from_millis(100), Duration::from_secs(10)),
    );
    idle_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut idle_since: Option<tokio::time::Instant> = None;
    let mut socket_check = tokio::time::interval(SOCKET_CHECK);
    socket_check.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let Bound {
        mut listener,
        file: mut socket_file,
    } = bound;
    let stopped_by = loop {
        while connections.try_join_next().is_some() {}
        tokio::select! {
            _ = socket_check.tick() => {
                let ours = file_id(&place.socket) == Some(socket_file);
                if ours && place.root.is_dir() {
                    continue;
                }
                match on_socket_check(ours, place.root.is_dir(), ours || busy(manager).await) {
                    Unreachable::Fine => {}
                    Unreachable::Rebind => match bind(place) {
                        Ok(bound) => {
                            tracing::warn!("the socket was removed; bound it again");
                            eprintln!(
                                "codiva: {} was removed while sessions work: listening on it again",
                                place.socket.display()
                            );
                            listener = bound.listener;
                            socket_file = bound.file;
                        }
                        Err(message) => {
                            eprintln!("codiva: the socket was removed and cannot be bound again ({message}): stopping");
                            break None;
                        }
                    },
                    Unreachable::Stop(why) => {
                        tracing::info!(why, "unreachable: stopping");
                        eprintln!("codiva: {why} ({}): stopping", place.socket.display());
                        break None;
                    }
                }
            }
            _ = idle_check.tick(), if !idle_exit.is_zero() => {
                if clients.load(Ordering::SeqCst) > 0 || busy(manager).await {
                    idle_since = None;
                    continue;
                }
                let since = *idle_since.get_or_insert_with(tokio::time::Instant::now);
                if since.elapsed() >= idle_exit {
                    tracing::info!(seconds = idle_exit.as_secs(), "idle: stopping");
                    eprintln!(
                        "codiva: idle for {} s (no agent working, no prompt waiting, no client): stopping",
                        idle_exit.as_secs()
                    );
                    break None;
                }
            }
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => {
                    connections.spawn(client(
                        stream,
                        manager.clone(),
                        host.clone(),
                        stop_rx.clone(),
                        clients.clone(),
                    ));
                }
                Err(err) => {
                    tracing::warn!(%err, "accept failed");
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            },
            signal = signals.recv() => break Some(signal),
            () = host.stop.notified() => break None,
        }
    };
    // New clients start a new daemon, which waits for this one's lock. (A socket file that is
    // no longer this daemon's is left alone.)
    if file_id(&place.socket) == Some(socket_file) {
        let _ = std::fs::remove_file(&place.socket);
    }
    drop(listener);
    manager.shutdown().await;
    let _ = stop_tx.send(true);
    let closed = async { while connections.join_next().await.is_some() {} };
    let _ = tokio::time::timeout(CLOSE_GRACE, closed).await;
    stopped_by
}

/// An agent works or a prompt waits (or the manager cannot say: then it counts as busy).
async fn busy(manager: &Manager) -> bool {
    match manager.list().await {
        Ok(sessions) => sessions
            .iter()
            .any(|session| daemon::is_working(session) || session.pending_prompts > 0),
        Err(_) => true,
    }
}

/// One client: refused when it is another user, else served until it leaves or the daemon
/// stops.
async fn client(
    stream: UnixStream,
    manager: Manager,
    host: Arc<Host>,
    mut stop: watch::Receiver<bool>,
    clients: Arc<AtomicUsize>,
) {
    let own = codiva_os::detach::effective_uid();
    let peer = stream.peer_cred().map(|cred| cred.uid());
    if peer.as_ref().ok() != Some(&own) {
        let peer = peer.map_or_else(|err| format!("unknown ({err})"), |uid| uid.to_string());
        tracing::warn!(%peer, "refused a client of another user");
        refuse(stream, own, &peer).await;
        return;
    }
    // Written without a wake-up per line the client reads (see `codiva_os::socket`).
    let (read, write) = match codiva_os::socket::split(stream) {
        Ok(halves) => halves,
        Err(err) => {
            tracing::warn!(%err, "could not take a client's connection");
            return;
        }
    };
    clients.fetch_add(1, Ordering::SeqCst);
    let connection = Connection::open(write, &manager);
    let stopping = async move {
        let _ = stop.wait_for(|stop| *stop).await;
        None
    };
    let ended = connection
        .serve(read, &manager, &host, stopping, CLIENT_DRAIN)
        .await;
    connection.close().await;
    clients.fetch_sub(1, Ordering::SeqCst);
    tracing::debug!(closed = ended == Ended::Closed, "a client left");
}

/// One error line for a client of another user, then the connection closes.
async fn refuse(mut stream: UnixStream, own: u32, peer: &str) {
    let error = RpcError::refused(
        codiva_protocol::error::RefusalCode::NotOwner,
        vec![own.to_string(), peer.to_owned()],
        format!("this codiva daemon belongs to uid {own}; connections from uid {peer} are refused"),
    );
    let Ok(mut line) = serde_json::to_vec(&error_response(Value::Null, error)) else {
        return;
    };
    line.push(b'\n');
    let _ = stream.write_all(&line).await;
    let _ = stream.shutdown().await;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lost_socket_is_bound_again_only_while_sessions_work() {
        assert_eq!(on_socket_check(true, true, false), Unreachable::Fine);
        assert_eq!(on_socket_check(false, true, true), Unreachable::Rebind);
        assert_eq!(
            on_socket_check(false, true, false),
            Unreachable::Stop("its socket was removed")
        );
        assert_eq!(
            on_socket_check(true, false, true),
            Unreachable::Stop("the repository is gone")
        );
    }
}
