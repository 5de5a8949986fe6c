//! Finding, starting and connecting to a repository's daemon (`codiva serve --listen`): the one
//! module the TUI, `exec --attach`, `attach`, `stop` and `status` use (docs/daemon.md).
//!
//! The socket is `$XDG_RUNTIME_DIR/codiva/<name>.sock`, else `<state dir>/run/<name>.sock`;
//! `<name>` is a stable hash of the repository's canonical main checkout. A client that finds no
//! daemon starts this same binary as `codiva serve --listen --repo ROOT`, detached (a session
//! of its own, stdio on the log file), and waits for the socket.

use std::io;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use codiva_client::{Client, ClientError};
use codiva_protocol::manager::{SessionInfo, SessionPhase};
use codiva_protocol::methods::request;
use codiva_protocol::params::{InitializeResult, NoParams};
use tokio::net::UnixStream;

/// How long a client waits for a daemon it started to open its socket.
const START_TIMEOUT: Duration = Duration::from_secs(30);
/// How often it looks.
const START_POLL: Duration = Duration::from_millis(20);
/// How long `stop` (and an upgrade) waits for a daemon to stop its agents and exit.
pub const STOP_TIMEOUT: Duration = Duration::from_secs(60);
/// The exit status of a daemon that found the repository's lock held (`EX_TEMPFAIL`): a client
/// starting it tries again until the holder is gone or its time is up.
pub const LOCKED_STATUS: u8 = 75;
/// How the daemon names itself in the repository's lock file.
pub const DAEMON_HOLDER: &str = "codiva daemon";
/// The longest socket path `sun_path` holds (108 bytes with its NUL on Linux).
const MAX_SOCKET_PATH: usize = 107;

/// The codiva version this binary reports as a daemon and compares as a client:
/// `CARGO_PKG_VERSION`, unless the testing hook is on (`CODIVA_TEST_HOOKS=1`) and
/// `CODIVA_TEST_VERSION` names another — so a test can run a client and a daemon of "different
/// versions" from one build (docs/daemon.md, Versioning). Without `CODIVA_TEST_HOOKS=1` the
/// variables are ignored.
pub fn own_version() -> String {
    test_hook("CODIVA_TEST_VERSION").unwrap_or_else(|| env!("CARGO_PKG_VERSION").to_owned())
}

/// What this binary's server says it is in `initialize` (its version and protocol version).
pub fn versions() -> codiva_server::Versions {
    codiva_server::Versions {
        version: own_version(),
        protocol_version: own_protocol_version(),
    }
}

/// The protocol version this binary speaks: `codiva_protocol::PROTOCOL_VERSION`, or
/// `CODIVA_TEST_PROTOCOL_VERSION` under the testing hook (see [`own_version`]).
pub fn own_protocol_version() -> String {
    test_hook("CODIVA_TEST_PROTOCOL_VERSION")
        .unwrap_or_else(|| codiva_protocol::PROTOCOL_VERSION.to_owned())
}

fn test_hook(name: &str) -> Option<String> {
    if std::env::var_os("CODIVA_TEST_HOOKS").is_none_or(|on| on != "1") {
        return None;
    }
    std::env::var(name).ok().filter(|value| !value.is_empty())
}

/// Where one repository's daemon lives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Place {
    /// The repository's main checkout, canonical.
    pub root: PathBuf,
    pub socket: PathBuf,
    pub log: PathBuf,
}

/// The place of the repository containing `path` (a subdirectory or a linked worktree of it).
pub async fn place_for(path: &Path) -> Result<Place, String> {
    let repo = codiva_core::git::Repo::open(path)
        .await
        .map_err(|err| err.to_string())?;
    place_for_root(repo.root())
}

/// The place of the repository whose main checkout is `root`.
pub fn place_for_root(root: &Path) -> Result<Place, String> {
    let root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let name = name_of(&root);
    let socket = socket_dir().join(format!("{name}.sock"));
    if socket.as_os_str().len() > MAX_SOCKET_PATH {
        return Err(format!(
            "the daemon's socket path {} is longer than {MAX_SOCKET_PATH} bytes; set XDG_RUNTIME_DIR (or CODIVA_STATE_DIR) to a shorter directory",
            socket.display()
        ));
    }
    let log = codiva_core::paths::state_dir()
        .join("daemon")
        .join(format!("{name}.log"));
    Ok(Place { root, socket, log })
}

/// The directory of every daemon's socket.
pub fn socket_dir() -> PathBuf {
    match std::env::var_os("XDG_RUNTIME_DIR").filter(|dir| !dir.is_empty()) {
        Some(dir) => PathBuf::from(dir).join("codiva"),
        None => codiva_core::paths::state_dir().join("run"),
    }
}

/// 16 hex digits of the 64-bit FNV-1a hash of the path's bytes: stable across builds and
/// machines (std's hasher is neither), short enough for `sun_path`.
pub(crate) fn name_of(root: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in root.as_os_str().as_bytes() {
        hash ^= u64::from(*byte);
        hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
    }
    format!("{hash:016x}")
}

/// A connection to the daemon when one runs (`None` when none listens).
pub async fn connect(place: &Place) -> Result<Option<UnixStream>, String> {
    match UnixStream::connect(&place.socket).await {
        Ok(stream) => Ok(Some(stream)),
        Err(err)
            if matches!(
                err.kind(),
                io::ErrorKind::NotFound | io::ErrorKind::ConnectionRefused
            ) =>
        {
            Ok(None)
        }
        Err(err) => Err(format!(
            "cannot connect to the daemon at {}: {err}",
            place.socket.display()
        )),
    }
}

/// A connection to the daemon, started first when none runs.
pub async fn connect_or_start(place: &Place) -> Result<UnixStream, String> {
    if let Some(stream) = connect(place).await? {
        return Ok(stream);
    }
    let deadline = Instant::now() + START_TIMEOUT;
    let mut child = spawn(place)?;
    loop {
        if let Some(stream) = connect(place).await? {
            reap_later(child);
            return Ok(stream);
        }
        match child.try_wait() {
            Ok(Some(status)) if status.code() == Some(i32::from(LOCKED_STATUS)) => {
                // Another daemon holds the repository: it is stopping (its socket is gone) or
                // starting (its socket comes soon). Look again, and start one if it went. Any
                // other holder (`codiva serve --stdio`, an in-process UI) is the user's to stop.
                if !held_by_daemon(&place.root) || Instant::now() >= deadline {
                    return Err(last_error(&place.log).unwrap_or_else(|| {
                        format!(
                            "another codiva holds this repository; see {}",
                            place.log.display()
                        )
                    }));
                }
                tokio::time::sleep(START_POLL * 5).await;
                if let Some(stream) = connect(place).await? {
                    return Ok(stream);
                }
                child = spawn(place)?;
                continue;
            }
            Ok(Some(status)) => {
                return Err(match last_error(&place.log) {
                    Some(line) => format!("the daemon did not start: {line}"),
                    None => format!(
                        "the daemon did not start ({status}); see {}",
                        place.log.display()
                    ),
                });
            }
            Ok(None) | Err(_) => {}
        }
        if Instant::now() >= deadline {
            reap_later(child);
            return Err(format!(
                "the daemon did not open {} within {} s; see {}",
                place.socket.display(),
                START_TIMEOUT.as_secs(),
                place.log.display()
            ));
        }
        tokio::time::sleep(START_POLL).await;
    }
}

/// Starts `codiva serve --listen --repo ROOT` detached: a session of its own, stdin from
/// `/dev/null`, stdout and stderr appended to the log file.
fn spawn(place: &Place) -> Result<std::process::Child, String> {
    let exe = std::env::current_exe().map_err(|err| format!("cannot find this program: {err}"))?;
    if let Some(dir) = place.log.parent() {
        std::fs::create_dir_all(dir)
            .map_err(|err| format!("cannot create {}: {err}", dir.display()))?;
    }
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&place.log)
        .map_err(|err| format!("cannot open {}: {err}", place.log.display()))?;
    let log_err = log
        .try_clone()
        .map_err(|err| format!("cannot open {}: {err}", place.log.display()))?;
    let mut command = Command::new(exe);
    command
        .args(["serve", "--listen", "--repo"])
        .arg(&place.root)
        .current_dir(&place.root)
        .stdin(Stdio::null())
        .stdout(Stdio::from(log))
        .stderr(Stdio::from(log_err));
    codiva_os::detach::new_session(&mut command)
        .spawn()
        .map_err(|err| format!("cannot start the daemon: {err}"))
}

/// The daemon outlives this process; until then, its exit status is collected (no zombie).
fn reap_later(mut child: std::process::Child) {
    std::thread::spawn(move || {
        let _ = child.wait();
    });
}

/// Whether the repository's lock names a daemon as its holder.
fn held_by_daemon(root: &Path) -> bool {
    std::fs::read_to_string(root.join(".codiva").join(codiva_core::repo_lock::LOCK_FILE))
        .ok()
        .and_then(|text| serde_json::from_str::<codiva_core::repo_lock::Holder>(text.trim()).ok())
        .is_some_and(|holder| holder.what == DAEMON_HOLDER)
}

/// The last `codiva: …` line the daemon wrote to its log.
fn last_error(log: &Path) -> Option<String> {
    let text = std::fs::read_to_string(log).ok()?;
    text.lines()
        .rev()
        .find_map(|line| line.strip_prefix("codiva: "))
        .map(str::to_owned)
}

/// A client of the repository's daemon (started when absent), past the version handshake.
pub struct Attached {
    pub client: Client,
    pub init: InitializeResult,
    pub place: Place,
}

/// The daemon of the repository containing `path` as a client, started when it does not run.
/// A daemon of another version is replaced when no session works; otherwise used when its
/// protocol matches, else refused in one line.
pub async fn attach(path: &Path) -> Result<Attached, String> {
    let place = place_for(path).await?;
    let (client, init) = open(&place).await?;
    if init.server.version == own_version() {
        return Ok(Attached {
            client,
            init,
            place,
        });
    }
    let working = working_count(&client)
        .await
        .map_err(|err| format!("the daemon did not list its sessions: {err}"))?;
    match version_policy(&init, working, &own_protocol_version()) {
        VersionPolicy::Replace => {
            tracing::info!(
                running = %init.server.version,
                "replacing a daemon of another version"
            );
            stop(&client).await?;
            let (client, init) = open(&place).await?;
            Ok(Attached {
                client,
                init,
                place,
            })
        }
        VersionPolicy::Attach => Ok(Attached {
            client,
            init,
            place,
        }),
        VersionPolicy::Refuse(message) => Err(message),
    }
}

/// What a client does with a daemon of another version.
#[derive(Debug, PartialEq, Eq)]
enum VersionPolicy {
    /// No session works: stop it and start this version's.
    Replace,
    /// Sessions work and the protocol is the same: use it as it is.
    Attach,
    /// Sessions work and the protocol differs: the line that says what to do.
    Refuse(String),
}

fn version_policy(init: &InitializeResult, working: usize, protocol: &str) -> VersionPolicy {
    if working == 0 {
        return VersionPolicy::Replace;
    }
    if init.protocol_version == protocol {
        return VersionPolicy::Attach;
    }
    let sessions = if working == 1 {
        "1 session is working".to_owned()
    } else {
        format!("{working} sessions are working")
    };
    VersionPolicy::Refuse(format!(
        "the running daemon is codiva {} (protocol {}) and {sessions}; use codiva {} until they finish, then `codiva stop`",
        init.server.version, init.protocol_version, init.server.version
    ))
}

/// Connects (starting the daemon when absent) and asks `initialize`.
async fn open(place: &Place) -> Result<(Client, InitializeResult), String> {
    let stream = connect_or_start(place).await?;
    handshake(stream).await
}

/// A client over `stream` and the daemon's `initialize`.
pub async fn handshake(stream: UnixStream) -> Result<(Client, InitializeResult), String> {
    let (read, write) = stream.into_split();
    let client = codiva_client::stream::connect(read, write);
    let init = client
        .call::<request::Initialize>(NoParams {})
        .await
        .map_err(|err| format!("the daemon did not answer: {err}"))?;
    Ok((client, init))
}

/// Asks the daemon to stop every agent and exit, and waits until it has (its connection ends).
pub async fn stop(client: &Client) -> Result<(), String> {
    let mut events = client.raw_events();
    client
        .call::<request::DaemonShutdown>(NoParams {})
        .await
        .map_err(|err| format!("the daemon did not stop: {err}"))?;
    let closed = async {
        loop {
            if let Err(tokio::sync::broadcast::error::RecvError::Closed) = events.recv().await {
                return;
            }
        }
    };
    tokio::time::timeout(STOP_TIMEOUT, closed)
        .await
        .map_err(|_| {
            format!(
                "the daemon did not exit within {} s",
                STOP_TIMEOUT.as_secs()
            )
        })
}

/// The session has work going on: being prepared, or its agent running or waiting on a prompt.
pub fn is_working(session: &SessionInfo) -> bool {
    match session.phase {
        SessionPhase::Preparing => true,
        SessionPhase::Active => !session.status.is_settled(),
        _ => false,
    }
}

/// How many of the daemon's sessions work (see [`is_working`]).
pub async fn working_count(client: &Client) -> Result<usize, ClientError> {
    let list = client.call::<request::SessionList>(NoParams {}).await?;
    Ok(list
        .sessions
        .iter()
        .filter(|session| is_working(session))
        .count())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn init(version: &str, protocol: &str) -> InitializeResult {
        serde_json::from_value(serde_json::json!({
            "protocol_version": protocol,
            "server": {"name": "codiva", "version": version},
            "repo": {"root": "/r", "base": "main"},
            "capabilities": {"agents": [], "images": true, "merge": true,
                "discard_confirmation": true, "subagent_logs": true, "event_seq": true},
            "warnings": [],
        }))
        .unwrap()
    }

    #[test]
    fn a_daemon_of_another_version_is_replaced_when_idle_else_kept_or_refused() {
        let same = codiva_protocol::PROTOCOL_VERSION;
        assert_eq!(
            version_policy(&init("0.0.9", same), 0, same),
            VersionPolicy::Replace
        );
        assert_eq!(
            version_policy(&init("0.0.9", "0"), 0, same),
            VersionPolicy::Replace
        );
        assert_eq!(
            version_policy(&init("0.0.9", same), 2, same),
            VersionPolicy::Attach
        );
        assert_eq!(
            version_policy(&init("0.2.0", "99"), 3, same),
            VersionPolicy::Refuse(
                "the running daemon is codiva 0.2.0 (protocol 99) and 3 sessions are working; use codiva 0.2.0 until they finish, then `codiva stop`"
                    .to_owned()
            )
        );
    }

    #[test]
    fn the_name_is_stable_and_short() {
        // Held to a fixed value: clients of other builds must find the same socket.
        assert_eq!(name_of(Path::new("/home/u/repo")), "d2c742a1a034034a");
        assert_ne!(
            name_of(Path::new("/home/u/repo2")),
            name_of(Path::new("/home/u/repo"))
        );
    }
}
