//! Keyboard handling, by focus zone.

use codiva_protocol::ClientRequest;
use codiva_protocol::manager::SessionPhase;
use codiva_protocol::params::{ApprovalParams, ResumeParams};
use codiva_protocol::session::Status;
use crossterm::event::{KeyCode, KeyEvent, KeyEventKind, KeyModifiers};

use super::composer_mode::{Collecting, ComposerMode};
use super::palette::{Command, Item};
use super::pane::Dialog;
use codiva_protocol::approval::ApprovalPolicy;

use super::requests::{discard, permission_params, question_params, send, session_params};
use super::{App, Effect, Focus, RunMode, View};
use crate::composer::ComposerAction;
use crate::i18n::{AppText, t, tf};
use crate::permission_dialog::DialogAction;

/// Ctrl+C over a view or a form that covers the body (help, a picker, the diff, the attempts
/// form…) cancels what is in front as Esc does there; it never quits codiva.
fn ctrl_c_as_esc(key: KeyEvent) -> KeyEvent {
    if key.code == KeyCode::Char('c') && key.modifiers.contains(KeyModifiers::CONTROL) {
        KeyEvent::new(KeyCode::Esc, KeyModifiers::NONE)
    } else {
        key
    }
}

impl App {
    pub(super) fn key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if key.kind == KeyEventKind::Release {
            return Vec::new();
        }
        if key.code == KeyCode::Char('l') && key.modifiers.contains(KeyModifiers::CONTROL) {
            return self.straight_to_list();
        }
        if self.help.is_some() {
            self.help_key(ctrl_c_as_esc(key));
            return Vec::new();
        }
        if let Some(confirm) = self.confirm.take() {
            let extra = self.confirm_extra.take();
            let key = ctrl_c_as_esc(key);
            // A question is answered by its letters alone: Ctrl+Y is not `y`.
            let code = if key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT)
            {
                KeyCode::Null
            } else {
                key.code
            };
            return match code {
                KeyCode::Char(c) if extra.as_ref().is_some_and(|(k, _, _)| *k == c) => {
                    extra.map(|(_, effects, _)| effects).unwrap_or_default()
                }
                // A question without a yes (nothing to merge: only `c` and `n`) stays open.
                KeyCode::Char('y' | 'Y') if confirm.on_yes.is_empty() => {
                    self.confirm = Some(confirm);
                    self.confirm_extra = extra;
                    Vec::new()
                }
                KeyCode::Char('y' | 'Y') => {
                    self.quit |= confirm.on_yes.contains(&Effect::Quit);
                    self.shutdown |= confirm.on_yes.contains(&Effect::Shutdown);
                    // A new session started from a finished one's view: the list shows it.
                    let creates = confirm.on_yes.iter().any(|effect| {
                        matches!(
                            effect,
                            Effect::Request {
                                request: ClientRequest::SessionCreate(_),
                                ..
                            }
                        )
                    });
                    if creates && self.view != View::List {
                        self.back_to_list();
                    }
                    confirm.on_yes
                }
                KeyCode::Char('n' | 'N') | KeyCode::Esc => {
                    if let Some(text) = confirm.restore {
                        self.composer.set_text(&text);
                    }
                    Vec::new()
                }
                _ => {
                    self.confirm = Some(confirm);
                    self.confirm_extra = extra;
                    Vec::new()
                }
            };
        }
        if self.overlay.is_some() {
            return self.overlay_key(ctrl_c_as_esc(key));
        }
        let ctrl = key.modifiers.contains(KeyModifiers::CONTROL);
        match key.code {
            KeyCode::Char('c') if ctrl => return self.interrupt_key(),
            KeyCode::Char('r') if ctrl => return self.resume_current(),
            KeyCode::Char('n') if ctrl => return self.next_in_inbox(),
            // The attempts form, with what the composer holds as its instruction.
            KeyCode::Char('g') if ctrl && self.view == View::List => {
                return self.open_attempts("");
            }
            KeyCode::BackTab => return self.cycle_run_mode(),
            KeyCode::Tab if !self.palette.is_open() => {
                self.cycle_focus();
                return Vec::new();
            }
            _ => {}
        }
        match self.focus {
            Focus::Dialog => self.dialog_key(key),
            Focus::List => self.list_key(key),
            Focus::Log => self.log_key(key),
            Focus::Composer => self.composer_key(key),
        }
    }

    fn interrupt_key(&mut self) -> Vec<Effect> {
        if let View::Detail(id) = &self.view {
            let id = id.clone();
            let running = self
                .sessions
                .iter()
                .find(|s| s.id == id)
                .is_some_and(|s| !s.status.is_settled() && s.phase == SessionPhase::Active);
            if running && let Some(name) = self.lacks(&id, |caps| caps.interrupt) {
                self.set_notice(tf(AppText::AgentCannotInterrupt, &[&name]), true);
                return Vec::new();
            }
            if running {
                // Until the session's status moves (interrupted, or the turn ended anyway).
                self.notice_until_status_moves(t(AppText::Interrupting), &id);
                return vec![Effect::request(ClientRequest::SessionInterrupt(
                    session_params(id),
                ))];
            }
        }
        if !self.composer.is_empty() {
            self.composer.clear();
            self.palette.close();
            return Vec::new();
        }
        // Nothing to interrupt: say what Ctrl+C does here, and how to quit.
        let text = match &self.view {
            View::List => t(AppText::CtrlCQuitHint).to_owned(),
            View::Detail(id) => tf(AppText::CtrlCIdle, &[&self.title_of(id)]),
        };
        self.set_notice(text, false);
        Vec::new()
    }

    fn resume_current(&mut self) -> Vec<Effect> {
        let Some(id) = self.current_id() else {
            return Vec::new();
        };
        let resumable = self.sessions.iter().find(|s| s.id == id).is_some_and(|s| {
            s.phase == SessionPhase::Active
                && matches!(
                    s.status,
                    Status::Interrupted | Status::Failed | Status::RateLimited | Status::NeedsLogin
                )
        });
        if resumable {
            self.notice_until_status_moves(tf(AppText::Resuming, &[&id]), &id);
            vec![Effect::request(ClientRequest::SessionResume(
                ResumeParams {
                    session_id: id,
                    text: None,
                },
            ))]
        } else {
            self.set_notice(t(AppText::NothingToResume), false);
            Vec::new()
        }
    }

    /// The run mode is the manager's approval policy (auto: allow all; confirm: ask), for
    /// new sessions and every session there is; the manager allows the waiting permissions
    /// the policy allows, and keeps the policy when this TUI goes away.
    fn cycle_run_mode(&mut self) -> Vec<Effect> {
        self.run_mode = match self.run_mode {
            RunMode::Confirm => RunMode::Auto,
            RunMode::Auto => RunMode::Confirm,
        };
        let policy = match self.run_mode {
            RunMode::Confirm => ApprovalPolicy::Ask,
            RunMode::Auto => ApprovalPolicy::AllowAll,
        };
        if self.run_mode == RunMode::Auto {
            // The waiting permissions the manager now allows are this client's doing.
            let waiting = self.panes.values().flat_map(|pane| {
                pane.prompts()
                    .iter()
                    .map(|prompt| prompt.request_id().to_owned())
            });
            self.answered.extend(waiting);
        }
        std::iter::once(None)
            .chain(self.sessions.iter().map(|session| Some(session.id.clone())))
            .map(|id| {
                Effect::request(ClientRequest::SessionSetApprovalPolicy(ApprovalParams {
                    session_id: id,
                    policy: policy.clone(),
                }))
            })
            .collect()
    }

    fn cycle_focus(&mut self) {
        let dialog = self
            .current_id()
            .is_some_and(|id| self.panes.get(&id).is_some_and(|p| p.has_dialog()));
        self.focus = match (&self.view, self.focus) {
            (View::List, Focus::Composer) if dialog => Focus::Dialog,
            (View::List, Focus::Composer | Focus::Dialog) if !self.sessions.is_empty() => {
                Focus::List
            }
            (View::List, _) => Focus::Composer,
            (View::Detail(_), Focus::Composer) if dialog => Focus::Dialog,
            (View::Detail(_), Focus::Composer | Focus::Dialog) => Focus::Log,
            (View::Detail(_), _) => Focus::Composer,
        };
    }

    /// Where Esc leads inside the dialog that has the keys, `None` at its top level.
    pub(super) fn dialog_back_hint(&self) -> Option<AppText> {
        let id = self
            .shown_dialog
            .clone()
            .filter(|id| self.panes.get(id).is_some_and(|pane| pane.has_dialog()))
            .or_else(|| self.current_id())?;
        self.panes.get(&id)?.built_dialog()?.back_hint()
    }

    fn dialog_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        // The dialog on screen, while it is still open; else the selected session's.
        let shown = self
            .shown_dialog
            .clone()
            .filter(|id| self.panes.get(id).is_some_and(|pane| pane.has_dialog()));
        let Some(id) = shown.or_else(|| self.current_id()) else {
            self.focus = Focus::Composer;
            return Vec::new();
        };
        if key.code == KeyCode::Esc {
            // One level back inside the dialog first; from its top level, out of it.
            if self.pane(&id).dialog().is_some_and(Dialog::step_back) {
                return Vec::new();
            }
            if self.view != View::List {
                self.back_to_list();
            } else {
                self.focus = Focus::Composer;
            }
            return Vec::new();
        }
        // A letter answers only when nothing is being typed: with a draft in the composer it
        // could be the next word of an instruction, never a decision.
        let letter = matches!(key.code, KeyCode::Char(_))
            && !key
                .modifiers
                .intersects(KeyModifiers::CONTROL | KeyModifiers::ALT);
        if letter && !self.composer.is_empty() {
            self.set_notice(t(AppText::DialogDraftPending), false);
            return Vec::new();
        }
        let action = match self.pane(&id).dialog() {
            Some(Dialog::Permission(dialog)) => dialog.handle_key(key),
            Some(Dialog::Question(dialog)) => dialog.handle_key(key),
            None => {
                self.focus = Focus::Composer;
                return Vec::new();
            }
        };
        self.dialog_action(&id, action)
    }

    pub(super) fn dialog_action(&mut self, id: &str, action: DialogAction) -> Vec<Effect> {
        let request_id = self
            .panes
            .get(id)
            .and_then(|pane| pane.prompts().first())
            .map(|prompt| prompt.request_id().to_owned());
        let Some(request_id) = request_id else {
            return Vec::new();
        };
        if matches!(action, DialogAction::Respond(_) | DialogAction::Answer(_)) {
            self.answered.insert(request_id.clone());
        }
        match action {
            DialogAction::None => Vec::new(),
            DialogAction::Respond(response) => {
                vec![Effect::request(ClientRequest::SessionRespondPermission(
                    permission_params(id.to_owned(), request_id, response),
                ))]
            }
            DialogAction::Answer(response) => {
                vec![Effect::request(ClientRequest::SessionAnswerQuestion(
                    question_params(id.to_owned(), request_id, response),
                ))]
            }
            DialogAction::WantText { purpose } => {
                let what = Collecting::Dialog {
                    id: id.to_owned(),
                    purpose,
                };
                self.start_collecting(what, "");
                self.notice_until(
                    t(AppText::TypeTextForDialog),
                    false,
                    super::notice::Until::TextGiven,
                );
                Vec::new()
            }
        }
    }

    fn list_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        if self.filter_editing() {
            return self.filter_key(key);
        }
        match key.code {
            // Moving over a waiting session shows its dialog; the keys stay in the list.
            KeyCode::Up | KeyCode::Char('k') => self.move_selection(-1),
            KeyCode::Down | KeyCode::Char('j') => self.move_selection(1),
            KeyCode::Home => self.move_selection(isize::MIN),
            KeyCode::End => self.move_selection(isize::MAX),
            KeyCode::Char('f') => self.start_filter(),
            // A group's row folds and unfolds; ← on an attempt goes to its group's row.
            KeyCode::Enter | KeyCode::Left | KeyCode::Right if self.on_group_row() => {
                self.group_row_key(key.code);
            }
            KeyCode::Left if self.select_group_row() => {}
            KeyCode::Char('c') => return self.open_compare(),
            KeyCode::Char('C') => return self.check_current(),
            KeyCode::Enter | KeyCode::Right => {
                if let Some(session) = self.selected_session() {
                    let id = session.id.clone();
                    return self.open_detail(id);
                }
            }
            KeyCode::Esc if self.filter.is_some() => self.filter = None,
            KeyCode::Esc => self.focus = Focus::Composer,
            KeyCode::Char('m') => return self.ask_merge(),
            KeyCode::Char('d') => return self.ask_discard(false),
            KeyCode::Char('x') => return self.ask_remove(),
            KeyCode::Char('r') => return self.resume_current(),
            KeyCode::Char('p') => return self.open_pr(),
            KeyCode::Char('P') => return self.ask_pr(),
            KeyCode::Char('F') => return self.fix_ci_current(),
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                return self.type_into_composer(c, key.modifiers);
            }
            _ => {}
        }
        Vec::new()
    }

    fn log_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        let Some(id) = self.current_id() else {
            return Vec::new();
        };
        if let Some(effects) = self.log_search_key(&id, key) {
            return effects;
        }
        match key.code {
            KeyCode::Up | KeyCode::Char('k') => self.pane(&id).log.scroll_up(1),
            KeyCode::Down | KeyCode::Char('j') => self.pane(&id).log.scroll_down(1),
            // Tool and subagent cards: move between them, open and close.
            KeyCode::Char('n') => {
                self.pane(&id).log.select_next_card();
            }
            KeyCode::Char('p') => {
                self.pane(&id).log.select_previous_card();
            }
            KeyCode::Enter => {
                let log = &mut self.pane(&id).log;
                // No card selected: a cut message on screen opens whole.
                if !log.has_selected_card()
                    && let Some(cut) = log.cut_message_in_view()
                {
                    return self.open_message(id, cut);
                }
                log.toggle_selected();
            }
            KeyCode::Esc if self.pane(&id).log.has_selected_card() => {
                self.pane(&id).log.clear_selection();
            }
            KeyCode::PageUp => self.pane(&id).log.page_up(),
            KeyCode::PageDown => self.pane(&id).log.page_down(),
            KeyCode::Home | KeyCode::Char('g') => self.pane(&id).log.to_top(),
            KeyCode::End | KeyCode::Char('G') => self.pane(&id).log.to_bottom(),
            KeyCode::Char('m') => return self.ask_merge(),
            KeyCode::Char('d') => return self.ask_discard(false),
            KeyCode::Char('x') => return self.ask_remove(),
            KeyCode::Char('r') => return self.resume_current(),
            KeyCode::Esc => {
                self.focus = if self.pane(&id).has_dialog() {
                    Focus::Dialog
                } else {
                    Focus::Composer
                };
            }
            // Typing goes to the composer (a command starts with `/`).
            KeyCode::Char(c) if !key.modifiers.contains(KeyModifiers::CONTROL) => {
                return self.type_into_composer(c, key.modifiers);
            }
            _ => {}
        }
        Vec::new()
    }

    /// A character typed while the list or the log has the focus: the composer takes the
    /// focus and the character.
    fn type_into_composer(&mut self, c: char, modifiers: KeyModifiers) -> Vec<Effect> {
        self.focus = Focus::Composer;
        self.composer_key(KeyEvent::new(KeyCode::Char(c), modifiers))
    }

    fn ask_discard(&mut self, forget: bool) -> Vec<Effect> {
        match self.current_id() {
            Some(id) => vec![discard(id, forget, None)],
            None => Vec::new(),
        }
    }

    fn composer_key(&mut self, key: KeyEvent) -> Vec<Effect> {
        // While walking the input history, ↑↓ stay in it even on a `/command` entry (its palette
        // shows, but does not take the arrows).
        if self.palette.is_open() && !self.composer.is_recalling() {
            match key.code {
                KeyCode::Up => {
                    self.palette.previous();
                    return Vec::new();
                }
                KeyCode::Down => {
                    self.palette.next();
                    return Vec::new();
                }
                KeyCode::Tab => {
                    if let Some(item) = self.palette.selected() {
                        self.composer.set_text(&format!("/{} ", item.name()));
                        let agent = self.agent_commands();
                        self.palette
                            .update(self.composer.text(), &self.view, &agent);
                    }
                    return Vec::new();
                }
                KeyCode::Esc => {
                    self.composer.clear();
                    self.palette.close();
                    return Vec::new();
                }
                _ => {}
            }
        }
        // In the detail view an empty composer leaves ↑↓ to the log (the input history is the list's).
        if matches!(self.view, View::Detail(_))
            && self.composer.is_empty()
            && matches!(key.code, KeyCode::Up | KeyCode::Down)
        {
            return self.log_key(key);
        }
        let action = self.composer.handle_key(key);
        let effects = match action {
            ComposerAction::Submit(text) => self.submit(text),
            ComposerAction::Unhandled(key) => self.composer_unhandled(key),
            ComposerAction::None | ComposerAction::Changed => Vec::new(),
        };
        let agent = self.agent_commands();
        self.palette
            .update(self.composer.text(), &self.view, &agent);
        effects
    }

    /// The agent's own slash commands (from its handshake), for the session on screen.
    pub(super) fn agent_commands(&self) -> Vec<(String, String)> {
        let View::Detail(id) = &self.view else {
            return Vec::new();
        };
        self.panes
            .get(id)
            .and_then(|pane| pane.agent())
            .map(|agent| {
                agent
                    .commands
                    .iter()
                    .map(|c| (c.name.clone(), c.description.clone().unwrap_or_default()))
                    .collect()
            })
            .unwrap_or_default()
    }

    fn composer_unhandled(&mut self, key: KeyEvent) -> Vec<Effect> {
        let detail = matches!(self.view, View::Detail(_));
        match key.code {
            // Esc leaves what the composer collects: the prompt unchanged, the dialog as it was.
            KeyCode::Esc if self.collecting == Some(Collecting::Prompt) => {
                self.stop_collecting();
                self.set_notice(t(AppText::PromptUnchanged), false);
            }
            KeyCode::Esc if self.collecting.is_some() => {
                self.stop_collecting();
                self.focus = Focus::Dialog;
            }
            KeyCode::Esc if detail => self.back_to_list(),
            KeyCode::Esc => {}
            KeyCode::Up | KeyCode::Down | KeyCode::PageUp | KeyCode::PageDown if detail => {
                return self.log_key(key);
            }
            KeyCode::Up | KeyCode::Down if !self.sessions.is_empty() => {
                self.focus = Focus::List;
                return self.list_key(key);
            }
            KeyCode::Enter if !detail && !self.sessions.is_empty() => self.focus = Focus::List,
            _ => {}
        }
        Vec::new()
    }

    fn submit(&mut self, text: String) -> Vec<Effect> {
        let mode = self.composer_mode();
        if self.collecting == Some(Collecting::Prompt) {
            self.stop_collecting();
            return vec![Effect::SavePrompt { text }];
        }
        let text = text.trim().to_owned();
        if let Some(Collecting::Dialog { id, .. }) = self.stop_collecting() {
            let action = match self.pane(&id).dialog() {
                Some(Dialog::Permission(dialog)) => dialog.provide_text(text),
                Some(Dialog::Question(dialog)) => dialog.provide_text(text),
                None => DialogAction::None,
            };
            self.focus = Focus::Dialog;
            return self.dialog_action(&id, action);
        }
        if let Some(rest) = text.strip_prefix('/') {
            let chosen = self.palette.selected();
            self.palette.close();
            return self.run_command(rest, chosen);
        }
        if let ComposerMode::Finished { title, merged } = mode {
            self.offer_new_session(&title, merged, text);
            return Vec::new();
        }
        if mode == ComposerMode::NoAgent {
            // Nothing can run: the text stays, and the agents are looked for again (the UI
            // ends with `Quit::Recheck`; its manager is started afresh and finds them).
            self.composer.set_text(&text);
            self.recheck = true;
            self.quit = true;
            return vec![Effect::Quit];
        }
        let mut effects = vec![Effect::SaveInputHistory];
        match &self.view {
            View::List => effects.push(self.create(text)),
            View::Detail(id) => effects.push(send(id.clone(), text)),
        }
        effects
    }

    fn run_command(&mut self, line: &str, chosen: Option<Item>) -> Vec<Effect> {
        let (name, argument) = line
            .split_once(char::is_whitespace)
            .map_or((line, ""), |(name, arg)| (name, arg.trim()));
        let chosen_codiva = match &chosen {
            Some(Item::Codiva(command)) if argument.is_empty() => Some(*command),
            _ => None,
        };
        let command = Command::parse(name).or(chosen_codiva);
        // The agent's own commands (e.g. /compact) are forwarded to it as a message.
        let agent_name = match (&command, &chosen) {
            (None, Some(Item::Agent { name, .. })) if argument.is_empty() => Some(name.clone()),
            (None, _) if self.agent_commands().iter().any(|(n, _)| n == name) => {
                Some(name.to_owned())
            }
            _ => None,
        };
        if let (Some(agent_name), View::Detail(id)) = (agent_name, &self.view) {
            let text = if argument.is_empty() {
                format!("/{agent_name}")
            } else {
                format!("/{agent_name} {argument}")
            };
            return vec![send(id.clone(), text)];
        }
        let Some(command) = command else {
            self.set_notice(tf(AppText::UnknownCommand, &[name]), true);
            return Vec::new();
        };
        if !command.available_in(&self.view) {
            // Where it works instead: every command works in the list or in a session.
            let key = if command.available_in(&View::List) {
                AppText::CommandOnlyInList
            } else if command.available_in(&View::Detail(String::new())) {
                AppText::CommandOnlyInSession
            } else {
                AppText::CommandNotHere
            };
            self.set_notice(tf(key, &[command.name()]), true);
            return Vec::new();
        }
        let id = self.current_id();
        command.run(self, id, argument)
    }
}

impl App {
    /// The name of session `id`'s agent when it cannot do what `can` asks of its
    /// capabilities (`agents/list`); `None` when it can, or when its agent is not listed.
    pub(super) fn lacks(
        &self,
        id: &str,
        can: impl Fn(&codiva_protocol::agent::AgentCapabilities) -> bool,
    ) -> Option<String> {
        let agent = &self.sessions.iter().find(|s| s.id == id)?.agent;
        let listed = self.info.agents.iter().find(|a| &a.id == agent)?;
        let caps = listed.capabilities.as_ref()?;
        (!can(caps)).then(|| listed.name.clone())
    }
}
