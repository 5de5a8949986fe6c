//! `/login [agent]`: the agent's own login command, run by the manager (on the machine the
//! agents run on), drawn over the body as it goes — the address to open (Ctrl+O opens it here),
//! a one-time code when the agent prints one, and a one-line editor for the code the browser
//! shows when the agent reads one back. codiva never sees a key: the agent stores its own
//! credentials. Esc cancels a running login, or closes a finished one.

use codiva_protocol::agent::{LoginPhase, LoginProgress};
use crossterm::event::{KeyCode, KeyEvent, KeyModifiers};
use ratatui::buffer::Buffer;
use ratatui::layout::Rect;
use ratatui::text::Line;

use crate::composer::Composer;
use crate::dialog::sanitize;
use crate::i18n::{AgentText, t, tf};
use crate::theme;
use crate::width::{str_width, truncate};

pub struct LoginView {
    /// The agent's id and its name for people.
    pub agent: String,
    name: String,
    /// What the manager said last (`None` until its first event).
    progress: Option<LoginProgress>,
    /// The code being typed, when the agent reads one.
    input: Composer,
    /// A code was sent since the last change.
    sent: bool,
    /// The host the login runs on, when it is not this one.
    remote: Option<String>,
    /// The method under the cursor while the agent's ways to log in are offered.
    selected: usize,
}

pub enum LoginAction {
    None,
    Close,
    /// Esc on a running login: stop it and close.
    Cancel {
        login_id: String,
    },
    Send {
        login_id: String,
        text: String,
    },
    Open {
        url: String,
    },
}

impl LoginView {
    pub fn new(agent: String, name: String, remote: Option<String>) -> Self {
        LoginView {
            agent,
            name,
            progress: None,
            input: Composer::new(),
            sent: false,
            remote,
            selected: 0,
        }
    }

    /// The login this view shows, once known.
    pub fn login_id(&self) -> Option<&str> {
        self.progress.as_ref().map(|p| p.login_id.as_str())
    }

    /// Takes a progress event of this view's agent.
    pub fn update(&mut self, progress: LoginProgress) {
        if self.progress.as_ref().map(|p| &p.output) != Some(&progress.output) {
            self.sent = false;
        }
        self.progress = Some(progress);
    }

    pub fn phase(&self) -> LoginPhase {
        self.progress
            .as_ref()
            .map_or(LoginPhase::Running, |p| p.phase)
    }

    fn reads_code(&self) -> bool {
        self.phase() == LoginPhase::Running
            && !self.choosing()
            && self.progress.as_ref().is_some_and(|p| p.accepts_code)
    }

    /// The agent's ways to log in are offered for a pick.
    fn choosing(&self) -> bool {
        self.phase() == LoginPhase::Running
            && self
                .progress
                .as_ref()
                .is_some_and(|p| p.choose_method && !p.methods.is_empty())
    }

    pub fn hint(&self) -> String {
        match self.phase() {
            LoginPhase::Running if self.choosing() => t(AgentText::LoginHintChoose).to_owned(),
            LoginPhase::Running if self.reads_code() => t(AgentText::LoginHintInput).to_owned(),
            LoginPhase::Running => t(AgentText::LoginHintRunning).to_owned(),
            _ => t(AgentText::LoginHintDone).to_owned(),
        }
    }

    pub fn key(&mut self, key: KeyEvent) -> LoginAction {
        let running = self.phase() == LoginPhase::Running;
        match key.code {
            KeyCode::Esc => {
                return match (running, self.login_id()) {
                    (true, Some(login_id)) => LoginAction::Cancel {
                        login_id: login_id.to_owned(),
                    },
                    _ => LoginAction::Close,
                };
            }
            KeyCode::Char('o') if key.modifiers.contains(KeyModifiers::CONTROL) => {
                return match self.progress.as_ref().and_then(|p| p.url.clone()) {
                    Some(url) => LoginAction::Open { url },
                    None => LoginAction::None,
                };
            }
            _ => {}
        }
        if !running {
            return match key.code {
                KeyCode::Enter | KeyCode::Char('q') => LoginAction::Close,
                _ => LoginAction::None,
            };
        }
        if self.choosing() {
            let (Some(progress), Some(login_id)) = (&self.progress, self.login_id()) else {
                return LoginAction::None;
            };
            let last = progress.methods.len().saturating_sub(1);
            match key.code {
                KeyCode::Up => self.selected = self.selected.saturating_sub(1),
                KeyCode::Down => self.selected = (self.selected + 1).min(last),
                KeyCode::Enter => {
                    let id = progress.methods[self.selected.min(last)].id.clone();
                    return LoginAction::Send {
                        login_id: login_id.to_owned(),
                        text: id,
                    };
                }
                _ => {}
            }
            return LoginAction::None;
        }
        if !self.reads_code() {
            return LoginAction::None;
        }
        if key.code == KeyCode::Enter {
            let text = self.input.text().trim().to_owned();
            let Some(login_id) = self.login_id().map(str::to_owned) else {
                return LoginAction::None;
            };
            if text.is_empty() {
                return LoginAction::None;
            }
            self.input = Composer::new();
            self.sent = true;
            return LoginAction::Send { login_id, text };
        }
        let _ = self.input.handle_key(key);
        LoginAction::None
    }

    pub fn paste(&mut self, text: &str) {
        if self.reads_code() {
            // A code is one line: what a paste brings after its first line is not.
            let first = text.lines().next().unwrap_or("");
            self.input.handle_paste(first);
        }
    }

    /// Draws the view; returns where the caret goes while a code can be typed.
    pub fn render(&mut self, area: Rect, buf: &mut Buffer) -> Option<(u16, u16)> {
        if area.height == 0 {
            return None;
        }
        let width = usize::from(area.width);
        let mut lines: Vec<Line> = vec![Line::styled(
            truncate(
                &format!(" {}", tf(AgentText::LoginTitle, &[&self.name])),
                width,
            ),
            theme::bold(),
        )];
        let name = self.name.as_str();
        match &self.progress {
            None => lines.push(Line::styled(
                format!("  {}", tf(AgentText::LoginStarting, &[name])),
                theme::dim(),
            )),
            Some(progress) => {
                if let Some(url) = &progress.url {
                    lines.push(Line::raw(format!("  {}", t(AgentText::LoginOpen))));
                    // The whole address, wrapped: it must be copyable from the terminal.
                    for chunk in wrap_chars(&sanitize(url), width.saturating_sub(4).max(8)) {
                        lines.push(Line::styled(format!("    {chunk}"), theme::accent()));
                    }
                    if let Some(host) = &self.remote {
                        lines.push(Line::styled(
                            truncate(
                                &format!(
                                    "  {}",
                                    tf(AgentText::LoginRemoteHost, &[&sanitize(host)])
                                ),
                                width,
                            ),
                            theme::dim(),
                        ));
                    }
                }
                if let Some(code) = &progress.code {
                    lines.push(Line::styled(
                        format!("  {}", tf(AgentText::LoginCode, &[&sanitize(code)])),
                        theme::bold(),
                    ));
                }
                if self.choosing() {
                    self.method_rows(progress, width, &mut lines);
                }
                let status = match progress.phase {
                    LoginPhase::Running if self.choosing() => (String::new(), theme::dim()),
                    LoginPhase::Running if self.sent => {
                        (tf(AgentText::LoginCodeSent, &[name]), theme::dim())
                    }
                    LoginPhase::Running if progress.accepts_code => {
                        (t(AgentText::LoginPaste).to_owned(), theme::text())
                    }
                    LoginPhase::Running => {
                        (t(AgentText::LoginWaitBrowser).to_owned(), theme::dim())
                    }
                    LoginPhase::Succeeded => {
                        (tf(AgentText::LoginSucceeded, &[name]), theme::accent())
                    }
                    LoginPhase::Failed if !progress.env_vars.is_empty() => (
                        tf(
                            AgentText::LoginSetEnv,
                            &[&sanitize(&progress.env_vars.join(", "))],
                        ),
                        theme::warning(),
                    ),
                    LoginPhase::Failed => (
                        tf(
                            AgentText::LoginFailed,
                            &[&sanitize(progress.error.as_deref().unwrap_or(""))],
                        ),
                        theme::warning(),
                    ),
                    LoginPhase::Cancelled => {
                        (t(AgentText::LoginCancelled).to_owned(), theme::dim())
                    }
                };
                if !status.0.is_empty() {
                    lines.push(Line::raw(""));
                    for row in wrap_words(&status.0, width.saturating_sub(2).max(8)) {
                        lines.push(Line::styled(format!("  {row}"), status.1));
                    }
                }
                // What the agent answered last while it runs (a code it did not take).
                let said = progress
                    .output
                    .last()
                    .filter(|line| Some(*line) != progress.url.as_ref())
                    .and_then(|line| codiva_protocol::text::after_prompt(line))
                    .filter(|_| progress.phase == LoginPhase::Running);
                if let Some(said) = said
                    && progress.url.is_some()
                {
                    for row in wrap_words(&sanitize(said), width.saturating_sub(2).max(8)) {
                        lines.push(Line::styled(format!("  {row}"), theme::warning()));
                    }
                }
                if progress.url.is_none() && !progress.output.is_empty() {
                    lines.push(Line::styled(
                        format!("  {}", tf(AgentText::LoginOutput, &[name])),
                        theme::dim(),
                    ));
                    for line in &progress.output {
                        lines.push(Line::styled(
                            truncate(&format!("    {}", sanitize(line)), width),
                            theme::dim(),
                        ));
                    }
                }
            }
        }
        let editor = self.reads_code();
        let rows = usize::from(area.height.saturating_sub(u16::from(editor)));
        for (row, line) in lines.iter().take(rows).enumerate() {
            let y = area.y + u16::try_from(row).unwrap_or(0);
            crate::width::set_line(buf, area.x, y, line, area.width);
        }
        if !editor {
            return None;
        }
        let y = area.y
            + u16::try_from(lines.len().min(rows))
                .unwrap_or(0)
                .min(area.height.saturating_sub(1));
        self.input.render(
            Rect::new(area.x + 2, y, area.width.saturating_sub(2), 1),
            buf,
        )
    }
}

impl LoginView {
    /// The agent's ways to log in, in its words, the one under the cursor marked.
    fn method_rows(&self, progress: &LoginProgress, width: usize, lines: &mut Vec<Line<'static>>) {
        lines.push(Line::raw(truncate(
            &format!("  {}", tf(AgentText::LoginChoose, &[&self.name])),
            width,
        )));
        for (index, method) in progress.methods.iter().enumerate() {
            let chosen = index == self.selected.min(progress.methods.len() - 1);
            let style = if chosen {
                theme::accent()
            } else {
                theme::text()
            };
            let mark = if chosen { "›" } else { " " };
            lines.push(Line::styled(
                truncate(&format!("  {mark} {}", sanitize(&method.name)), width),
                style,
            ));
            let mut detail: Vec<String> = method
                .description
                .iter()
                .map(|d| sanitize(d).into_owned())
                .collect();
            if !method.env_vars.is_empty() {
                detail.push(tf(
                    AgentText::LoginMethodEnv,
                    &[&sanitize(&method.env_vars.join(", "))],
                ));
            }
            if !detail.is_empty() {
                lines.push(Line::styled(
                    truncate(&format!("      {}", detail.join(" · ")), width),
                    theme::dim(),
                ));
            }
        }
    }
}

/// `text` cut into pieces of at most `width` columns (an address has no spaces to wrap at).
fn wrap_chars(text: &str, width: usize) -> Vec<String> {
    let mut pieces = Vec::new();
    let mut piece = String::new();
    for c in text.chars() {
        if !piece.is_empty() && str_width(&piece) + str_width(c.encode_utf8(&mut [0; 4])) > width {
            pieces.push(std::mem::take(&mut piece));
        }
        piece.push(c);
    }
    pieces.push(piece);
    pieces
}

/// `text` in rows of at most `width` columns, broken between words (a word longer than a row
/// is cut).
fn wrap_words(text: &str, width: usize) -> Vec<String> {
    let mut rows: Vec<String> = Vec::new();
    let mut row = String::new();
    for word in text.split_whitespace() {
        let needed = str_width(word) + usize::from(!row.is_empty());
        if !row.is_empty() && str_width(&row) + needed > width {
            rows.push(std::mem::take(&mut row));
        }
        if !row.is_empty() {
            row.push(' ');
        }
        row.push_str(word);
    }
    if !row.is_empty() {
        rows.push(row);
    }
    rows.into_iter().map(|row| truncate(&row, width)).collect()
}
