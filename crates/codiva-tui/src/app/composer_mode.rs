//! What Enter does in the composer, said before it is pressed. The one composer serves five
//! purposes — a new session's instruction, a follow-up to the session on screen, the reason for
//! a denial, a free-text answer, the text of `.codiva/prompt.md` — and each has its own
//! placeholder and footer. The mode is derived from the app's state at every frame, never
//! stored, so it cannot go stale. Text the composer held when a dialog or the prompt took it is
//! set aside and given back when that ends (sent or abandoned).

use codiva_protocol::manager::SessionPhase;

use super::{App, Confirm, Effect, Focus, View};
use crate::dialog::TextPurpose;
use crate::i18n::{AppText, t, tf};

/// The composer's purpose now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ComposerMode {
    /// The list: Enter starts a session.
    Instruction,
    /// The list while no agent is installed: nothing can run; Enter checks again, the text
    /// stays.
    NoAgent,
    /// A session: Enter sends a follow-up to it.
    FollowUp { title: String },
    /// A merged or discarded session: Enter offers to start a new session with the text.
    Finished { title: String, merged: bool },
    /// Enter denies the permission with this reason.
    DenyReason,
    /// Enter sends this answer to the question.
    Answer,
    /// Enter saves `.codiva/prompt.md`.
    Prompt,
}

impl ComposerMode {
    /// Shown in the empty composer.
    pub fn placeholder(&self) -> String {
        match self {
            ComposerMode::Instruction => t(AppText::ListPlaceholder).to_owned(),
            ComposerMode::NoAgent => t(AppText::NoAgentPlaceholder).to_owned(),
            ComposerMode::FollowUp { title } => tf(AppText::FollowUpPlaceholder, &[title]),
            ComposerMode::Finished {
                title,
                merged: true,
            } => tf(AppText::MergedPlaceholder, &[title]),
            ComposerMode::Finished { title, .. } => tf(AppText::DiscardedPlaceholder, &[title]),
            ComposerMode::DenyReason => t(AppText::DenyReasonPlaceholder).to_owned(),
            ComposerMode::Answer => t(AppText::AnswerPlaceholder).to_owned(),
            ComposerMode::Prompt => t(AppText::PromptPlaceholder).to_owned(),
        }
    }

    /// The footer's key hints while the composer has the keys, most important first.
    pub fn hints(&self) -> &'static str {
        t(match self {
            ComposerMode::Instruction => AppText::HintList,
            ComposerMode::NoAgent => AppText::HintNoAgent,
            ComposerMode::FollowUp { .. } => AppText::HintDetail,
            ComposerMode::Finished { .. } => AppText::HintFinished,
            ComposerMode::DenyReason => AppText::HintDenyReason,
            ComposerMode::Answer => AppText::HintAnswer,
            ComposerMode::Prompt => AppText::HintPrompt,
        })
    }
}

/// Text the composer is collecting for something other than a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Collecting {
    /// For the dialog of session `id`.
    Dialog { id: String, purpose: TextPurpose },
    /// The text of `.codiva/prompt.md`.
    Prompt,
}

impl App {
    pub(super) fn composer_mode(&self) -> ComposerMode {
        match &self.collecting {
            Some(Collecting::Prompt) => return ComposerMode::Prompt,
            Some(Collecting::Dialog {
                purpose: TextPurpose::DenyReason,
                ..
            }) => return ComposerMode::DenyReason,
            Some(Collecting::Dialog { .. }) => return ComposerMode::Answer,
            None => {}
        }
        let View::Detail(id) = &self.view else {
            if self.no_agent() {
                return ComposerMode::NoAgent;
            }
            return ComposerMode::Instruction;
        };
        // Short enough that what Enter does stays in sight on a narrow terminal.
        let title = crate::width::truncate(&self.title_of(id), 24);
        match self.sessions.iter().find(|s| s.id == *id).map(|s| &s.phase) {
            Some(SessionPhase::Merged { .. }) => ComposerMode::Finished {
                title,
                merged: true,
            },
            Some(SessionPhase::Discarded) => ComposerMode::Finished {
                title,
                merged: false,
            },
            _ => ComposerMode::FollowUp { title },
        }
    }

    /// No agent is installed (the manager listed its agents and none is ready): no session
    /// can start.
    pub(super) fn no_agent(&self) -> bool {
        !self.info.agents.is_empty()
            && !self
                .info
                .agents
                .iter()
                .any(|agent| agent.status == codiva_protocol::agent::AgentStatus::Ready)
    }

    /// The composer starts collecting text for `what`; what it held is set aside.
    pub(super) fn start_collecting(&mut self, what: Collecting, text: &str) {
        if self.collecting.is_none() {
            self.set_aside = Some(self.composer.text().to_owned());
        }
        self.collecting = Some(what);
        self.composer.set_text(text);
        self.focus = Focus::Composer;
    }

    /// The collected text was sent or abandoned: the composer gets back what it held before.
    pub(super) fn stop_collecting(&mut self) -> Option<Collecting> {
        let what = self.collecting.take();
        if what.is_some() {
            let text = self.set_aside.take().unwrap_or_default();
            self.composer.set_text(&text);
        }
        what
    }

    /// A follow-up typed into a merged or discarded session: nothing is lost, it offers to
    /// start a new session with the text (no gives the text back to the composer).
    pub(super) fn offer_new_session(&mut self, title: &str, merged: bool, text: String) {
        let question = if merged {
            AppText::MergedFollowUp
        } else {
            AppText::DiscardedFollowUp
        };
        self.confirm = Some(Confirm {
            text: vec![tf(question, &[title]), format!("  › {}", first_line(&text))],
            on_yes: vec![Effect::SaveInputHistory, self.create(text.clone())],
            restore: Some(text),
        });
    }
}

/// The first line of `text`, marked when more follows.
fn first_line(text: &str) -> String {
    let mut lines = text.lines();
    let first = lines.next().unwrap_or_default();
    if lines.next().is_some() {
        format!("{first} …")
    } else {
        first.to_owned()
    }
}
