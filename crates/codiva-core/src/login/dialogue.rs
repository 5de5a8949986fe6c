//! A login over the agent's own protocol ([`LoginDialogue`]): the agent process runs in its own
//! group as a login command does; its stdout carries protocol lines for the dialogue and,
//! around them, whatever the agent prints for a person (Gemini CLI prints the address and
//! `Enter the authorization code:` there, outside the protocol, and reads the code from its
//! stdin); its stderr is shown as output. What the user types picks a method while the
//! dialogue asks for one, and is typed into the agent afterwards when it asked on its stdout.

use std::sync::Arc;

use codiva_protocol::agent::{LoginPhase, LoginProgress, LoginState};
use tokio::io::{AsyncRead, AsyncReadExt as _, AsyncWriteExt as _};
use tokio::process::{Child, ChildStdin};
use tokio::sync::{mpsc, oneshot};

use super::{DialogueStep, LOGIN_LIMIT, LoginDialogue, Logins, Text, failure, strip_escapes};
use crate::process::EnvPolicy;
use crate::process::parent_watch::ParentWatch;
use crate::provider::{OutLine, Provider};

/// The longest the output of an ended login is still read.
const DRAIN_LIMIT: std::time::Duration = std::time::Duration::from_secs(2);

/// What came out of the agent.
enum Out {
    /// A protocol line (stdout, a JSON object).
    Line(Vec<u8>),
    /// Text for a person on stdout.
    Prompt(Vec<u8>),
    /// Text on stderr.
    Log(Vec<u8>),
}

/// How the dialogue ended, if it did.
enum End {
    Done,
    Failed(String),
    NeedsEnv(Vec<String>),
}

pub(crate) struct Dialogue {
    pub child: Child,
    pub pgid: u32,
    pub watch: Option<ParentWatch>,
    pub dialogue: Box<dyn LoginDialogue>,
    pub progress: LoginProgress,
    pub provider: Arc<dyn Provider>,
    pub env: EnvPolicy,
    pub logins: Arc<Logins>,
    pub inputs: mpsc::UnboundedReceiver<String>,
    pub stop: oneshot::Receiver<()>,
}

/// Splits stdout into protocol lines and text: a line that starts with `{` is the protocol's
/// (also one that ends a line of text); anything else (also a prompt with no newline yet) is
/// text.
async fn split_stdout(mut from: impl AsyncRead + Unpin, to: mpsc::UnboundedSender<Out>) {
    let mut buf = vec![0u8; 8192];
    let mut pending: Vec<u8> = Vec::new();
    while let Ok(n) = from.read(&mut buf).await {
        if n == 0 {
            break;
        }
        pending.extend_from_slice(&buf[..n]);
        while let Some(end) = pending.iter().position(|&b| b == b'\n') {
            let line: Vec<u8> = pending.drain(..=end).collect();
            for out in classify(line) {
                if to.send(out).is_err() {
                    return;
                }
            }
        }
        if !pending.is_empty() && !pending.trim_ascii_start().starts_with(b"{") {
            // A prompt waiting on the same line for what the user types.
            if to.send(Out::Prompt(std::mem::take(&mut pending))).is_err() {
                return;
            }
        }
    }
}

/// One line of stdout: the protocol's, text, or text that a protocol message ends (a prompt
/// still pending when the answer to what the user typed at it arrived: `Enter the code: {…}`).
fn classify(line: Vec<u8>) -> Vec<Out> {
    if line.trim_ascii_start().starts_with(b"{") {
        return vec![Out::Line(line)];
    }
    let message_at = line.iter().enumerate().position(|(at, &b)| {
        b == b'{'
            && serde_json::from_slice::<serde_json::Value>(&line[at..])
                .is_ok_and(|value| value.is_object())
    });
    match message_at {
        Some(at) => vec![
            Out::Prompt(line[..at].to_vec()),
            Out::Line(line[at..].to_vec()),
        ],
        None => vec![Out::Prompt(line)],
    }
}

async fn write(stdin: &mut Option<ChildStdin>, lines: &[OutLine]) {
    for line in lines {
        let Some(pipe) = stdin.as_mut() else { return };
        let text = format!("{}\n", line.as_str());
        if pipe.write_all(text.as_bytes()).await.is_err() || pipe.flush().await.is_err() {
            *stdin = None;
        }
    }
}

impl Dialogue {
    pub async fn run(mut self, emit: impl Fn(LoginProgress) + Send + Sync + 'static) {
        let (out_tx, mut outs) = mpsc::unbounded_channel();
        if let Some(stdout) = self.child.stdout.take() {
            tokio::spawn(split_stdout(stdout, out_tx.clone()));
        }
        if let Some(stderr) = self.child.stderr.take() {
            let (tx, mut rx) = mpsc::unbounded_channel();
            tokio::spawn(super::forward(stderr, tx));
            tokio::spawn(async move {
                while let Some(chunk) = rx.recv().await {
                    if out_tx.send(Out::Log(chunk)).is_err() {
                        return;
                    }
                }
            });
        } else {
            drop(out_tx);
        }
        let mut stdin = self.child.stdin.take();
        write(&mut stdin, &self.dialogue.opening()).await;

        let mut text = Text::default();
        let deadline = tokio::time::sleep(LOGIN_LIMIT);
        tokio::pin!(deadline);
        let (mut cancelled, mut timed_out, mut status, mut end) = (false, false, None, None);
        let mut outs_open = true;
        while end.is_none() {
            let step = tokio::select! {
                out = outs.recv(), if outs_open => match out {
                    Some(Out::Line(line)) => self.dialogue.receive(&line),
                    Some(Out::Prompt(chunk)) => {
                        // The agent asks on its terminal: what the user types goes there.
                        self.progress.accepts_code = true;
                        self.show(&mut text, &chunk, &emit);
                        DialogueStep::Nothing
                    }
                    Some(Out::Log(chunk)) => {
                        self.show(&mut text, &chunk, &emit);
                        DialogueStep::Nothing
                    }
                    None => {
                        outs_open = false;
                        DialogueStep::Nothing
                    }
                },
                typed = self.inputs.recv() => match typed {
                    Some(typed) if self.dialogue.choosing() => {
                        self.dialogue.choose(&typed).unwrap_or(DialogueStep::Nothing)
                    }
                    Some(typed) if self.progress.accepts_code => {
                        let line = OutLine::new(typed).into_iter().collect::<Vec<_>>();
                        write(&mut stdin, &line).await;
                        DialogueStep::Nothing
                    }
                    _ => DialogueStep::Nothing,
                },
                exited = self.child.wait() => {
                    status = exited.ok();
                    break;
                }
                _ = &mut self.stop => {
                    cancelled = true;
                    break;
                }
                () = &mut deadline => {
                    timed_out = true;
                    break;
                }
            };
            match step {
                DialogueStep::Nothing => {}
                DialogueStep::Write(lines) => {
                    write(&mut stdin, &lines).await;
                    if self.progress.choose_method && !self.dialogue.choosing() {
                        self.progress.choose_method = false;
                        emit(self.progress.clone());
                    }
                }
                DialogueStep::Choose(methods) => {
                    self.progress.methods = methods;
                    self.progress.choose_method = true;
                    emit(self.progress.clone());
                }
                DialogueStep::Done => end = Some(End::Done),
                DialogueStep::Failed(reason) => end = Some(End::Failed(reason)),
                DialogueStep::NeedsEnv(vars) => end = Some(End::NeedsEnv(vars)),
            }
        }
        // The login is over however it ended: the agent and whatever it started go.
        crate::process::signal::kill_group(self.pgid);
        if status.is_none() {
            status = self.child.wait().await.ok();
        }
        if let Some(watch) = self.watch.take() {
            watch.reap().await;
        }
        // What it printed up to its end (its last words on stderr may trail its answer): the
        // pipes close now that its group is gone; a process that left the group could keep
        // them open, so this waits a bounded time.
        let drain = async {
            while let Some(out) = outs.recv().await {
                if let Out::Prompt(chunk) | Out::Log(chunk) = out {
                    text.push(&chunk);
                }
            }
        };
        let _ = tokio::time::timeout(DRAIN_LIMIT, drain).await;
        let mut progress = self.progress;
        progress.output = text.lines();
        progress.choose_method = false;
        progress.accepts_code = false;
        self.logins.runs.lock().await.remove(&progress.login_id);
        progress.phase = match end {
            _ if cancelled => LoginPhase::Cancelled,
            _ if timed_out => {
                progress.error = Some(format!(
                    "no login within {} minutes",
                    LOGIN_LIMIT.as_secs() / 60
                ));
                LoginPhase::Failed
            }
            None => {
                progress.error = Some(failure(&progress.output, status));
                LoginPhase::Failed
            }
            Some(End::Failed(reason)) => {
                progress.error = Some(reason);
                LoginPhase::Failed
            }
            Some(End::NeedsEnv(vars)) => {
                progress.error = Some(format!(
                    "set {} where codiva's agents run (codiva stores no keys)",
                    vars.join(", ")
                ));
                progress.env_vars = vars;
                LoginPhase::Failed
            }
            Some(End::Done) => match super::check(self.provider.as_ref(), &self.env).await {
                LoginState::NotLoggedIn => {
                    progress.error = Some(
                        "the agent accepted the login, but it is still not logged in".to_owned(),
                    );
                    LoginPhase::Failed
                }
                // The agent's own answer stands where codiva cannot check it.
                LoginState::LoggedIn { .. } | LoginState::Unknown { .. } => LoginPhase::Succeeded,
            },
        };
        if let Some(error) = progress.error.take() {
            progress.error = Some(strip_escapes(&error));
        }
        emit(progress);
    }

    fn show(&mut self, text: &mut Text, chunk: &[u8], emit: &impl Fn(LoginProgress)) {
        if text.push(chunk) {
            self.progress.output = text.lines();
            self.progress.url = self.progress.url.take().or_else(|| text.url());
            self.progress.code = self.progress.code.take().or_else(|| text.code());
            emit(self.progress.clone());
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_message_after_a_pending_prompt_is_still_the_protocols() {
        let kinds = |line: &str| -> Vec<(char, String)> {
            classify(line.as_bytes().to_vec())
                .into_iter()
                .map(|out| match out {
                    Out::Line(l) => ('L', String::from_utf8(l).unwrap()),
                    Out::Prompt(t) => ('P', String::from_utf8(t).unwrap()),
                    Out::Log(t) => ('E', String::from_utf8(t).unwrap()),
                })
                .collect()
        };
        let answer = r#"{"jsonrpc":"2.0","id":2,"result":{}}"#;
        assert_eq!(
            kinds(&format!("{answer}\n")),
            [('L', format!("{answer}\n"))]
        );
        assert_eq!(
            kinds(&format!(
                "\u{1b}[1GEnter the authorization code: {answer}\n"
            )),
            [
                ('P', "\u{1b}[1GEnter the authorization code: ".to_owned()),
                ('L', format!("{answer}\n"))
            ]
        );
        assert_eq!(
            kinds("a {brace} in text\n"),
            [('P', "a {brace} in text\n".to_owned())]
        );
    }
}
