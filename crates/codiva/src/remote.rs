//! `--remote [user@]host:/path/to/repo`: a front end on this machine, the repository's daemon on
//! another. `ssh` runs `codiva attach --stdio --repo PATH` there, which bridges the SSH channel to
//! that repository's daemon (starting it when needed); this side speaks the same JSON-RPC over
//! the channel as over a local socket. A dropped connection loses nothing: the daemon and its
//! agents go on, and attaching again shows the sessions as they went on.
//!
//! `ssh` is the user's own (`$CODIVA_SSH`, default `ssh`: their configuration, keys and agent);
//! the remote program is `$CODIVA_REMOTE_CODIVA` (default `codiva`, found on the remote PATH of a
//! non-interactive shell).

use std::process::Stdio;
use std::time::Duration;

use codiva_client::Client;
use codiva_protocol::methods::request;
use codiva_protocol::params::{InitializeResult, NoParams};
use tokio::io::AsyncReadExt as _;
use tokio::sync::oneshot;

/// How long the remote side gets to answer `initialize` (ssh's handshake, starting the daemon).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);

/// The most of the remote side's stderr kept for an error message.
const STDERR_TAIL: usize = 8 * 1024;

/// Where a remote repository is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RemoteTarget {
    /// What `ssh` connects to: `host`, `user@host` or an alias of the user's ssh configuration.
    pub destination: String,
    /// The repository's path on that host.
    pub path: String,
}

impl RemoteTarget {
    /// `[user@]host:/path/to/repo` (the path may start with `~/`).
    pub fn parse(text: &str) -> Result<Self, String> {
        let usage = || {
            format!(
                "--remote needs [user@]host:/path/to/repo, not {text:?} (e.g. me@build-box:/src/app)"
            )
        };
        let (destination, path) = text.split_once(':').ok_or_else(usage)?;
        if destination.is_empty()
            || path.is_empty()
            || destination.starts_with('-')
            || destination
                .chars()
                .any(|c| c.is_whitespace() || c.is_control())
            || path.chars().any(char::is_control)
        {
            return Err(usage());
        }
        Ok(RemoteTarget {
            destination: destination.to_owned(),
            path: path.to_owned(),
        })
    }

    /// The host, as the UI names it (`user@` left out).
    pub fn host(&self) -> &str {
        self.destination
            .rsplit_once('@')
            .map_or(self.destination.as_str(), |(_, host)| host)
    }
}

/// The `ssh` command line that attaches to `target`'s daemon: the user's ssh, no terminal, a
/// keep-alive that notices a dead connection, and the remote command as one shell-quoted string.
pub fn ssh_argv(
    target: &RemoteTarget,
    ssh: Option<&str>,
    remote_codiva: Option<&str>,
) -> Vec<String> {
    let mut argv: Vec<String> = ssh
        .filter(|ssh| !ssh.trim().is_empty())
        .unwrap_or("ssh")
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    argv.extend(
        [
            "-T",
            "-o",
            "ServerAliveInterval=15",
            "-o",
            "ServerAliveCountMax=3",
        ]
        .map(str::to_owned),
    );
    argv.push("--".to_owned());
    argv.push(target.destination.clone());
    let program = remote_codiva
        .filter(|program| !program.trim().is_empty())
        .unwrap_or("codiva");
    argv.push(format!(
        "{} attach --stdio --repo {}",
        shell_quote(program),
        shell_quote_path(&target.path)
    ));
    argv
}

/// A word for a POSIX shell: unchanged when it is plain, else in single quotes.
fn shell_quote(word: &str) -> String {
    let plain = !word.is_empty()
        && word
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "/._-+=:@%,".contains(c));
    if plain {
        word.to_owned()
    } else {
        format!("'{}'", word.replace('\'', r"'\''"))
    }
}

/// A path for a POSIX shell, keeping a leading `~/` outside the quotes so the remote shell
/// expands it to the remote home.
fn shell_quote_path(path: &str) -> String {
    match path.strip_prefix("~/") {
        Some(rest) if !rest.is_empty() => format!("~/{}", shell_quote(rest)),
        _ if path == "~" => "~".to_owned(),
        _ => shell_quote(path),
    }
}

/// The user's `ssh` command line (`$CODIVA_SSH`, whitespace-separated, default `ssh`).
fn user_ssh() -> Option<String> {
    std::env::var("CODIVA_SSH").ok()
}

/// The remote program (`$CODIVA_REMOTE_CODIVA`, default `codiva`).
fn remote_program() -> Option<String> {
    std::env::var("CODIVA_REMOTE_CODIVA").ok()
}

/// What the terminal UI needs to run a shell or an editor on the host: the user's ssh words
/// and the destination.
pub fn host_for_ui(target: &RemoteTarget) -> codiva_tui::app::RemoteHost {
    let mut ssh: Vec<String> = user_ssh()
        .filter(|ssh| !ssh.trim().is_empty())
        .unwrap_or_else(|| "ssh".to_owned())
        .split_whitespace()
        .map(str::to_owned)
        .collect();
    ssh.push(target.destination.clone());
    codiva_tui::app::RemoteHost {
        host: target.host().to_owned(),
        ssh,
    }
}

/// How often a dropped connection to a daemon is tried again (the UI over `--remote`, `exec
/// --attach` and `exec --remote`), and how long between tries.
pub const RETRIES: u32 = 5;
pub const RETRY_DELAY: std::time::Duration = std::time::Duration::from_secs(2);

/// Attaches to the daemon of `target`'s repository over the user's `ssh`.
pub async fn attach(target: &RemoteTarget) -> Result<RemoteConnection, String> {
    let argv = ssh_argv(target, user_ssh().as_deref(), remote_program().as_deref());
    connect(target, &argv).await
}

/// An attached remote daemon: the client over the SSH channel and the `ssh` process.
pub struct RemoteConnection {
    pub client: Client,
    pub init: InitializeResult,
    close: oneshot::Sender<()>,
    child: tokio::process::Child,
}

impl RemoteConnection {
    /// Closes the channel (the remote bridge exits; the daemon goes on) and waits for `ssh`.
    pub async fn close(self, grace: Duration) {
        let RemoteConnection {
            client,
            close,
            mut child,
            ..
        } = self;
        drop(client);
        codiva_client::stream::close_and_reap(close, &mut child, grace).await;
    }
}

/// Runs `argv` (from [`ssh_argv`]) and asks the remote daemon `initialize`; a failure is one line
/// naming the host and what to do.
pub async fn connect(target: &RemoteTarget, argv: &[String]) -> Result<RemoteConnection, String> {
    let host = target.host().to_owned();
    let Some((program, args)) = argv.split_first() else {
        return Err("an empty ssh command line".to_owned());
    };
    let mut child = tokio::process::Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|err| format!("cannot run {program}: {err}"))?;
    let (Some(stdin), Some(stdout), Some(mut stderr)) =
        (child.stdin.take(), child.stdout.take(), child.stderr.take())
    else {
        return Err("ssh's stdio is not piped".to_owned());
    };
    // ssh's and the remote side's diagnostics: kept (a tail) for an error, never on the terminal.
    let (tail_tx, tail_rx) = oneshot::channel::<Vec<u8>>();
    tokio::spawn(async move {
        let mut tail = Vec::new();
        let mut buf = [0u8; 4096];
        while let Ok(n) = stderr.read(&mut buf).await {
            if n == 0 {
                break;
            }
            tail.extend_from_slice(&buf[..n]);
            if tail.len() > STDERR_TAIL {
                tail.drain(..tail.len() - STDERR_TAIL);
            }
        }
        let _ = tail_tx.send(tail);
    });
    let (client, close) = codiva_client::stream::connect_closable(stdout, stdin);
    let answer = tokio::time::timeout(
        CONNECT_TIMEOUT,
        client.call::<request::Initialize>(NoParams {}),
    )
    .await;
    match answer {
        Ok(Ok(init)) => match same_protocol(&host, &init.protocol_version) {
            Ok(()) => Ok(RemoteConnection {
                client,
                init,
                close,
                child,
            }),
            Err(message) => {
                let _ = close.send(());
                let _ = child.kill().await;
                Err(message)
            }
        },
        Ok(Err(_)) | Err(_) => {
            let _ = close.send(());
            let status = match tokio::time::timeout(Duration::from_secs(5), child.wait()).await {
                Ok(Ok(status)) => status.code(),
                _ => {
                    let _ = child.kill().await;
                    None
                }
            };
            let tail = tokio::time::timeout(Duration::from_secs(2), tail_rx)
                .await
                .ok()
                .and_then(Result::ok)
                .unwrap_or_default();
            Err(explain_failure(
                &host,
                status,
                &String::from_utf8_lossy(&tail),
            ))
        }
    }
}

/// A remote daemon of another protocol version is refused in one line (it would misread
/// requests or send what this client cannot read).
pub fn same_protocol(host: &str, theirs: &str) -> Result<(), String> {
    let ours = codiva_protocol::PROTOCOL_VERSION;
    if theirs == ours {
        return Ok(());
    }
    Err(format!(
        "the codiva on {host} speaks protocol {theirs}, this one {ours}: install the same codiva version there (or here)"
    ))
}

/// One line for a remote side that did not answer, from `ssh`'s exit code and the stderr tail.
pub fn explain_failure(host: &str, status: Option<i32>, stderr: &str) -> String {
    let last = stderr
        .lines()
        .map(str::trim)
        .rfind(|line| !line.is_empty())
        .and_then(|line| codiva_protocol::text::sanitize_title_to(line, 300))
        .unwrap_or_default();
    if status == Some(127) || stderr.contains("command not found") {
        return format!(
            "codiva is not installed on {host} (or not on the PATH of a non-interactive ssh shell): install it there (`cargo install --git <codiva repository> codiva`) or set CODIVA_REMOTE_CODIVA to its path"
        );
    }
    if stderr.contains("unrecognized subcommand") || stderr.contains("unexpected argument") {
        return format!(
            "the codiva on {host} is older than this one (it has no `codiva attach`): upgrade it there"
        );
    }
    if status == Some(255) {
        return format!("ssh could not reach {host}: {last}");
    }
    match status {
        Some(code) => format!("codiva on {host} did not start (exit {code}): {last}"),
        None => format!("codiva on {host} did not answer: {last}"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_parse_with_and_without_a_user() {
        assert_eq!(
            RemoteTarget::parse("me@box:/src/app").unwrap(),
            RemoteTarget {
                destination: "me@box".into(),
                path: "/src/app".into()
            }
        );
        let target = RemoteTarget::parse("box:~/app").unwrap();
        assert_eq!(target.host(), "box");
        assert_eq!(RemoteTarget::parse("me@box:/a").unwrap().host(), "box");
        for bad in [
            "box",
            ":/a",
            "box:",
            "-oProxyCommand=x:/a",
            "a b:/c",
            "box:/a\n",
        ] {
            assert!(RemoteTarget::parse(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn the_remote_command_is_one_quoted_string() {
        let target = RemoteTarget::parse("me@box:/src/my app's").unwrap();
        let argv = ssh_argv(&target, Some("ssh -p 2222"), None);
        assert_eq!(argv[..3], ["ssh", "-p", "2222"]);
        let dashdash = argv.iter().position(|word| word == "--").unwrap();
        assert_eq!(argv[dashdash + 1], "me@box");
        assert_eq!(
            argv[dashdash + 2],
            r"codiva attach --stdio --repo '/src/my app'\''s'"
        );
        assert_eq!(argv.len(), dashdash + 3);
        let home = ssh_argv(
            &RemoteTarget::parse("box:~/app").unwrap(),
            None,
            Some("/opt/codiva"),
        );
        assert_eq!(home[0], "ssh");
        assert_eq!(
            home.last().unwrap(),
            "/opt/codiva attach --stdio --repo ~/app"
        );
    }

    #[test]
    fn another_protocol_is_one_line() {
        assert!(same_protocol("box", codiva_protocol::PROTOCOL_VERSION).is_ok());
        let other = same_protocol("box", "0-old").unwrap_err();
        assert!(
            other.starts_with("the codiva on box speaks protocol 0-old"),
            "{other}"
        );
        assert!(!other.contains('\n'));
    }

    #[test]
    fn failures_say_what_to_do() {
        let missing = explain_failure(
            "box",
            Some(127),
            "bash: line 1: codiva: command not found\n",
        );
        assert!(missing.contains("not installed on box"), "{missing}");
        let older = explain_failure(
            "box",
            Some(2),
            "error: unrecognized subcommand 'attach'\n\nUsage: codiva [OPTIONS] [COMMAND]\n",
        );
        assert!(older.contains("older"), "{older}");
        let unreachable = explain_failure(
            "box",
            Some(255),
            "ssh: connect to host box port 22: Connection refused\r\n",
        );
        assert_eq!(
            unreachable,
            "ssh could not reach box: ssh: connect to host box port 22: Connection refused"
        );
        let hostile = explain_failure("box", Some(1), "\u{1b}]52;c;evil\u{7}boom\n");
        assert!(!hostile.contains('\u{1b}'), "{hostile:?}");
    }
}
