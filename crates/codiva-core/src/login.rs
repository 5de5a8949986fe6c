//! An agent's own login command, run for a client (`agents/login`) on the machine the agents
//! run on — the daemon's, which for a remote repository is not the user's. codiva stores no
//! key or token: the agent's login writes its own credentials; codiva only shows what it prints
//! (the address to open, a one-time code), types back the code the browser shows when the agent
//! asks for one, and runs the agent's login check when the command ends.
//!
//! Measured (docs/protocol/login.md): `claude auth login` (2.1.332) prints the address and then
//! `Paste code here if prompted >` and reads the code from stdin; `codex login` (0.171.0)
//! prints the address and waits for the browser's redirect to its server on localhost:1455.

use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use codiva_protocol::agent::{LoginMethod, LoginPhase, LoginProgress, LoginState};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::process::{ChildStdin, Command};
use tokio::sync::{Mutex, mpsc};

use crate::process::EnvPolicy;
use crate::provider::{CommandLine, OutLine, Provider};

/// The longest a login may wait for the user.
pub(crate) const LOGIN_LIMIT: Duration = Duration::from_secs(15 * 60);

/// The longest the login check after it may take.
const CHECK_LIMIT: Duration = Duration::from_secs(10);

/// Output lines kept for clients.
const KEPT_LINES: usize = 12;

/// Bytes of output read in all; a login command that prints more is not one.
const MAX_OUTPUT: usize = 256 * 1024;

/// A login command an agent offers.
#[derive(Debug, Clone, PartialEq)]
pub struct LoginCommand {
    pub command: CommandLine,
    /// It reads a code the browser shows from stdin.
    pub accepts_code: bool,
}

/// A login the agent performs over its own protocol (an ACP agent's `authenticate`): pure
/// translation, like a [`crate::provider::Connection`]; [`Logins`] runs the process.
pub trait LoginDialogue: Send + std::fmt::Debug {
    /// Written as soon as the process runs.
    fn opening(&mut self) -> Vec<OutLine>;
    /// One protocol line the agent wrote.
    fn receive(&mut self, line: &[u8]) -> DialogueStep;
    /// The user picked method `id` (`None`: the agent offers no such method, or it is too
    /// late to pick).
    fn choose(&mut self, id: &str) -> Option<DialogueStep>;
    /// It waits for the user to pick a method.
    fn choosing(&self) -> bool;
}

/// What a [`LoginDialogue`] wants next.
#[derive(Debug, Clone, PartialEq)]
pub enum DialogueStep {
    Nothing,
    /// Lines to the agent.
    Write(Vec<OutLine>),
    /// The user is to pick one of these.
    Choose(Vec<LoginMethod>),
    /// The agent says the login succeeded.
    Done,
    /// It failed, in the agent's words (sanitised).
    Failed(String),
    /// The method picked needs these variables set where the agents run.
    NeedsEnv(Vec<String>),
}

/// The logins running now.
#[derive(Default)]
pub(crate) struct Logins {
    pub(crate) runs: Mutex<HashMap<String, Running>>,
    next: AtomicU64,
}

pub(crate) struct Running {
    agent: String,
    stdin: Option<ChildStdin>,
    /// What the user types, for a login over the agent's protocol (its task owns stdin).
    input: Option<mpsc::UnboundedSender<String>>,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

/// Why a login request was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoginError {
    #[error("{0} has no login command codiva can run; log in with its own CLI")]
    NoLogin(String),
    #[error("a login for {0} is already running")]
    AlreadyRunning(String),
    #[error("no login {0} is running")]
    NoSuchLogin(String),
    #[error("login {0} does not read a code")]
    NoInput(String),
    #[error("cannot start the login command: {0}")]
    Spawn(String),
}

impl Logins {
    /// Starts `provider`'s login; `emit` hears each change, the last with a final phase.
    pub(crate) async fn start(
        self: &Arc<Self>,
        provider: Arc<dyn Provider>,
        env: EnvPolicy,
        emit: impl Fn(LoginProgress) + Send + Sync + 'static,
    ) -> Result<String, LoginError> {
        let agent = provider.id().to_owned();
        let Some(login) = provider.login() else {
            return Err(LoginError::NoLogin(provider.display_name().to_owned()));
        };
        let mut runs = self.runs.lock().await;
        if runs.values().any(|run| run.agent == agent) {
            return Err(LoginError::AlreadyRunning(
                provider.display_name().to_owned(),
            ));
        }
        let login_id = format!("login-{}", self.next.fetch_add(1, Ordering::Relaxed) + 1);
        let mut child = command(&login.command, &env)
            .spawn()
            .map_err(|err| LoginError::Spawn(err.to_string()))?;
        let pgid = child.id().unwrap_or(0);
        // Stopped with codiva however codiva ends (parent_watch.rs).
        let watch = crate::process::parent_watch::ParentWatch::start(pgid).ok();
        let (stop_tx, stop_rx) = tokio::sync::oneshot::channel();
        let dialogue = provider.login_dialogue(&env);
        let (input_tx, inputs) = mpsc::unbounded_channel();
        runs.insert(
            login_id.clone(),
            Running {
                agent: agent.clone(),
                stdin: if dialogue.is_some() {
                    None
                } else {
                    child.stdin.take()
                },
                input: dialogue.is_some().then_some(input_tx),
                stop: Some(stop_tx),
            },
        );
        drop(runs);
        let progress = LoginProgress {
            login_id: login_id.clone(),
            agent: agent.clone(),
            phase: LoginPhase::Running,
            url: None,
            code: None,
            accepts_code: login.accepts_code,
            output: Vec::new(),
            error: None,
            methods: Vec::new(),
            choose_method: false,
            env_vars: Vec::new(),
        };
        if let Some(dialogue) = dialogue {
            emit(progress.clone());
            let run = Dialogue {
                child,
                pgid,
                watch,
                dialogue,
                progress,
                provider,
                env,
                logins: self.clone(),
                inputs,
                stop: stop_rx,
            };
            tokio::spawn(run.run(emit));
            return Ok(login_id);
        }
        let mut progress = progress;

        let (chunks_tx, chunks) = mpsc::unbounded_channel::<Vec<u8>>();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(forward(stdout, chunks_tx.clone()));
        }
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(forward(stderr, chunks_tx));
        }
        progress.agent = agent;
        emit(progress.clone());
        let plain = Plain {
            child,
            pgid,
            watch,
            chunks,
            stop: stop_rx,
            progress,
            provider,
            env,
            logins: self.clone(),
        };
        tokio::spawn(plain.run(emit));
        Ok(login_id)
    }

    /// Types `text` and a newline into login `login_id`.
    pub(crate) async fn input(&self, login_id: &str, text: &str) -> Result<(), LoginError> {
        let mut runs = self.runs.lock().await;
        let run = runs
            .get_mut(login_id)
            .ok_or_else(|| LoginError::NoSuchLogin(login_id.to_owned()))?;
        if let Some(input) = &run.input {
            return input
                .send(text.trim().to_owned())
                .map_err(|_| LoginError::NoSuchLogin(login_id.to_owned()));
        }
        let stdin = run
            .stdin
            .as_mut()
            .ok_or_else(|| LoginError::NoInput(login_id.to_owned()))?;
        let line = format!("{}\n", text.trim());
        if stdin.write_all(line.as_bytes()).await.is_err() || stdin.flush().await.is_err() {
            return Err(LoginError::NoSuchLogin(login_id.to_owned()));
        }
        Ok(())
    }

    /// Stops login `login_id` (it ends `cancelled`).
    pub(crate) async fn cancel(&self, login_id: &str) -> Result<(), LoginError> {
        let mut runs = self.runs.lock().await;
        let run = runs
            .get_mut(login_id)
            .ok_or_else(|| LoginError::NoSuchLogin(login_id.to_owned()))?;
        if let Some(stop) = run.stop.take() {
            let _ = stop.send(());
        }
        Ok(())
    }

    /// Stops every login (the manager stops).
    pub(crate) async fn cancel_all(&self) {
        let mut runs = self.runs.lock().await;
        for run in runs.values_mut() {
            if let Some(stop) = run.stop.take() {
                let _ = stop.send(());
            }
        }
    }
}

pub(crate) async fn forward(mut from: impl AsyncRead + Unpin, to: mpsc::UnboundedSender<Vec<u8>>) {
    let mut buf = vec![0u8; 4096];
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 || to.send(buf[..n].to_vec()).is_err() {
            return;
        }
    }
}

pub(crate) async fn check(provider: &dyn Provider, env: &EnvPolicy) -> LoginState {
    if let Some(state) = provider.login_state(env) {
        return state;
    }
    let Some(command) = provider.login_check() else {
        return LoginState::Unknown {
            reason: "the agent has no login check".to_owned(),
        };
    };
    match crate::process::run_captured(&command.program, &command.args, env, CHECK_LIMIT).await {
        Ok(run) => provider.read_login(&format!("{}{}", run.stdout, run.stderr), run.success),
        Err(err) => LoginState::Unknown {
            reason: err.to_string(),
        },
    }
}

pub(crate) fn failure(output: &[String], status: Option<std::process::ExitStatus>) -> String {
    let last = output
        .iter()
        .rev()
        .find_map(|line| codiva_protocol::text::after_prompt(line));
    match (last, status.and_then(|status| status.code())) {
        (Some(line), _) => line.to_owned(),
        (None, Some(code)) => format!("the login command exited with {code}"),
        (None, None) => "the login command ended without logging in".to_owned(),
    }
}

/// A login command's output, escape sequences removed.
#[derive(Default)]
pub(crate) struct Text {
    raw: Vec<u8>,
    closed: bool,
}

impl Text {
    /// Adds a chunk; `true` when it changed what clients see.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> bool {
        if self.raw.len() >= MAX_OUTPUT {
            return false;
        }
        let room = MAX_OUTPUT - self.raw.len();
        self.raw.extend_from_slice(&chunk[..chunk.len().min(room)]);
        true
    }

    fn closed(&self) -> bool {
        self.closed
    }

    fn close(&mut self) {
        self.closed = true;
    }

    fn clean(&self) -> String {
        strip_escapes(&String::from_utf8_lossy(&self.raw))
    }

    /// The last lines, cleaned (a prompt without a newline counts as a line).
    pub(crate) fn lines(&self) -> Vec<String> {
        let clean = self.clean();
        let lines: Vec<String> = clean
            .split(['\n', '\r'])
            .map(str::trim_end)
            .filter(|line| !line.trim().is_empty())
            .map(|line| codiva_protocol::text::sanitize_title_to(line, 400).unwrap_or_default())
            .collect();
        lines[lines.len().saturating_sub(KEPT_LINES)..].to_vec()
    }

    /// The first `https://` address printed.
    pub(crate) fn url(&self) -> Option<String> {
        first_url(&self.clean())
    }

    /// A one-time code printed for the user (`ABCD-1234`): a line that is only such a code.
    pub(crate) fn code(&self) -> Option<String> {
        self.clean().lines().map(str::trim).find_map(|line| {
            let parts: Vec<&str> = line.split('-').collect();
            let is_code = (2..=3).contains(&parts.len())
                && parts.iter().all(|part| {
                    (3..=8).contains(&part.len())
                        && part
                            .chars()
                            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
                });
            is_code.then(|| line.to_owned())
        })
    }
}

fn first_url(text: &str) -> Option<String> {
    let start = text.find("https://")?;
    let url: String = text[start..]
        .chars()
        .take_while(|c| !c.is_whitespace() && !c.is_control() && !"<>\"'`".contains(*c))
        .collect();
    let url = url.trim_end_matches(['.', ',', ')', ']']).to_owned();
    (url.len() > "https://".len()).then_some(url)
}

/// Removes ANSI escape sequences (CSI, OSC, two-byte escapes); other control characters but
/// newlines and carriage returns go too.
pub(crate) fn strip_escapes(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        match c {
            '\u{1b}' => match chars.next() {
                Some('[') => {
                    // CSI: parameters and intermediates up to a final byte in @..~.
                    for c in chars.by_ref() {
                        if ('@'..='~').contains(&c) {
                            break;
                        }
                    }
                }
                Some(']') => {
                    // OSC: up to BEL or ST (ESC \).
                    while let Some(c) = chars.next() {
                        if c == '\u{7}' {
                            break;
                        }
                        if c == '\u{1b}' {
                            chars.next_if_eq(&'\\');
                            break;
                        }
                    }
                }
                _ => {}
            },
            '\n' | '\r' | '\t' => out.push(c),
            c if c.is_control() => {}
            c => out.push(c),
        }
    }
    out
}

mod dialogue;
/// A login command that prints (no dialogue): its output read for the address and code to
/// show, until it exits, is cancelled, or runs out of time; then the agent's own login check.
struct Plain {
    child: tokio::process::Child,
    pgid: u32,
    watch: Option<crate::process::parent_watch::ParentWatch>,
    chunks: mpsc::UnboundedReceiver<Vec<u8>>,
    stop: tokio::sync::oneshot::Receiver<()>,
    progress: LoginProgress,
    provider: Arc<dyn Provider>,
    env: EnvPolicy,
    logins: Arc<Logins>,
}

impl Plain {
    async fn run(self, emit: impl Fn(LoginProgress) + Send + Sync + 'static) {
        let Plain {
            mut child,
            pgid,
            watch,
            mut chunks,
            stop: mut stop_rx,
            mut progress,
            provider,
            env,
            logins,
        } = self;
        let mut text = Text::default();
        let deadline = tokio::time::sleep(LOGIN_LIMIT);
        tokio::pin!(deadline);
        let mut cancelled = false;
        let mut timed_out = false;
        let mut status = None;
        loop {
            tokio::select! {
                chunk = chunks.recv(), if !text.closed() => match chunk {
                    Some(chunk) => {
                        if text.push(&chunk) {
                            progress.output = text.lines();
                            progress.url = progress.url.take().or_else(|| text.url());
                            progress.code = progress.code.take().or_else(|| text.code());
                            emit(progress.clone());
                        }
                    }
                    None => text.close(),
                },
                exited = child.wait() => {
                    status = exited.ok();
                    break;
                }
                _ = &mut stop_rx => {
                    cancelled = true;
                    break;
                }
                () = &mut deadline => {
                    timed_out = true;
                    break;
                }
            }
        }
        if status.is_none() {
            crate::process::signal::kill_group(pgid);
            status = child.wait().await.ok();
        } else {
            // Anything it left in its group (a callback server).
            crate::process::signal::kill_group(pgid);
        }
        if let Some(watch) = watch {
            watch.reap().await;
        }
        // What it printed last (the reason of a failure).
        while let Ok(chunk) = chunks.try_recv() {
            text.push(&chunk);
        }
        progress.output = text.lines();
        logins.runs.lock().await.remove(&progress.login_id);
        progress.phase = if cancelled {
            LoginPhase::Cancelled
        } else if timed_out {
            progress.error = Some(format!(
                "no login within {} minutes",
                LOGIN_LIMIT.as_secs() / 60
            ));
            LoginPhase::Failed
        } else if !status.is_some_and(|status| status.success()) {
            // The agent's own "couldn't log in" (a key in the environment would still make
            // its login check say logged in).
            progress.error = Some(failure(&progress.output, status));
            LoginPhase::Failed
        } else {
            match check(provider.as_ref(), &env).await {
                LoginState::LoggedIn { .. } => LoginPhase::Succeeded,
                LoginState::NotLoggedIn => {
                    progress.error = Some(failure(&progress.output, status));
                    LoginPhase::Failed
                }
                LoginState::Unknown { reason } => {
                    progress.error = Some(strip_escapes(&reason));
                    LoginPhase::Failed
                }
            }
        };
        emit(progress);
    }
}

/// The login command as the agent gives it, in its own process group (stopping it reaches
/// whatever it started: a local callback server), with the agents' environment.
fn command(line: &CommandLine, env: &EnvPolicy) -> Command {
    let mut command = Command::new(&line.program);
    command
        .args(&line.args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    crate::process::spawn::apply_env(&mut command, env);
    command.envs(line.env.iter().map(|(k, v)| (k, v)));
    command.process_group(0);
    command
}

use dialogue::Dialogue;

#[cfg(test)]
mod tests {
    use super::*;

    /// What `claude auth login` (2.1.332) printed here before it waited for a code.
    const CLAUDE_LOGIN: &str = include_str!("../tests/fixtures/login/claude-auth-login.txt");
    /// What `codex login` (0.171.0) printed here before it waited for the browser.
    const CODEX_LOGIN: &str = include_str!("../tests/fixtures/login/codex-login.txt");

    fn text(raw: &str) -> Text {
        let mut text = Text::default();
        text.push(raw.as_bytes());
        text
    }

    #[test]
    fn the_address_comes_from_what_the_agents_print() {
        let claude = text(CLAUDE_LOGIN);
        assert_eq!(
            claude.url().as_deref(),
            Some(CLAUDE_LOGIN.lines().nth(2).unwrap().trim())
        );
        assert_eq!(claude.code(), None);
        assert_eq!(
            claude.lines().last().map(String::as_str),
            Some("Paste code here if prompted >")
        );
        let codex = text(CODEX_LOGIN);
        let url = codex.url().unwrap();
        assert!(url.starts_with("https://auth.openai.com/oauth/authorize?response_type=code&"));
        assert!(url.ends_with("&originator=codex_cli_rs"), "{url}");
        assert_eq!(codex.code(), None);
    }

    #[test]
    fn escape_sequences_never_reach_clients() {
        let text = text(
            "\u{1b}[1mOpen\u{1b}[0m \u{1b}]8;;https://evil.example\u{7}https://example.com/a\u{1b}]8;;\u{7}\n\u{1b}[2K\rABCD-12345\n",
        );
        assert_eq!(text.url().as_deref(), Some("https://example.com/a"));
        assert_eq!(text.code().as_deref(), Some("ABCD-12345"));
        for line in text.lines() {
            assert!(!line.contains('\u{1b}'), "{line:?}");
        }
    }
}
