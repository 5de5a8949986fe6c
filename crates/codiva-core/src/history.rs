//! A neutral history per session: codiva's own compact, capped record of each turn.
//!
//! The agent's transcript is the full conversation, but it belongs to the provider: it may be
//! missing (the agent died before writing it, someone deleted it, a provider keeps none) and
//! another agent cannot read it. This record is what codiva itself saw: the user's messages,
//! what the agent said and thought between its tool calls (in order with them), the final
//! text, one line per tool call, how each turn ended, and the switches from one agent to
//! another. It is built by a pure fold over the session's [`SessionEvent`]s
//! ([`History::apply`]), persisted beside `state.json` (`history_file.rs`), used to rebuild a
//! restored session's log when there is no transcript ([`History::log_entries`]), and the
//! source of the text that hands a session over to another agent (`history/handover.rs`).
//!
//! Everything is capped: each text, the messages and tool calls of one turn, and the whole
//! record (the oldest turns go first; how many went is kept).

pub mod handover;

use std::collections::VecDeque;

use codiva_protocol::agent::NoteLevel;
use codiva_protocol::log::{EntryKind, ToolEntry, ToolStatus};
use codiva_protocol::session::{Scope, SessionEvent, Status};
use serde::{Deserialize, Serialize};

/// Longest user message kept.
pub const MAX_USER_TEXT: usize = 8 * 1024;
/// User messages kept per turn (a turn can answer several: folded messages).
pub const MAX_USER_MESSAGES: usize = 8;
/// Longest final agent text kept per turn.
pub const MAX_FINAL_TEXT: usize = 8 * 1024;
/// Tool calls kept per turn (the later ones are only counted).
pub const MAX_TOOLS: usize = 40;
/// Texts and thinking blocks kept per turn (the later ones are only counted).
pub const MAX_SAID: usize = 40;
/// Longest text said before the final one, and longest thinking block, kept.
pub const MAX_SAID_TEXT: usize = 4 * 1024;
/// Longest one-line tool summary kept.
pub const MAX_TOOL_SUMMARY: usize = 200;
/// Longest outcome detail kept.
pub const MAX_DETAIL: usize = 1024;
/// Byte budget of one session's record; the oldest items are dropped first.
pub const HISTORY_BUDGET: usize = 256 * 1024;
/// What one item costs beyond its texts (field names, numbers), for the budget.
const ITEM_OVERHEAD: usize = 96;

/// The longest prefix of `text` of at most `max` bytes that ends on a character boundary.
pub fn cut_at_char(text: &str, max: usize) -> &str {
    codiva_protocol::text::head(text, max)
}

/// A text kept up to a cap; `full_bytes` is the real size when it was cut.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Capped {
    pub text: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub full_bytes: Option<usize>,
}

impl Capped {
    pub fn new(text: &str, max: usize) -> Self {
        let kept = cut_at_char(text, max);
        Capped {
            text: kept.to_owned(),
            full_bytes: (kept.len() < text.len()).then_some(text.len()),
        }
    }

    /// The text, with a note of the real size when it was cut.
    pub fn display(&self) -> String {
        match self.full_bytes {
            Some(full) => format!("{}… [cut: {full} bytes in all]", self.text),
            None => self.text.clone(),
        }
    }
}

/// Which agent did a turn.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct AgentRef {
    /// `claude`, `codex`, …
    pub name: String,
    pub model: Option<String>,
}

impl AgentRef {
    pub fn new(name: &str) -> Self {
        AgentRef {
            name: name.to_owned(),
            model: None,
        }
    }

    /// `claude (opus)` or `claude`.
    pub fn label(&self) -> String {
        match &self.model {
            Some(model) => format!("{} ({model})", self.name),
            None => self.name.clone(),
        }
    }
}

/// How a tool call ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ToolOutcome {
    Running,
    Succeeded,
    Failed,
    Denied,
    /// Its turn ended without the agent saying how it ended.
    Unreported,
    #[serde(other)]
    Unknown,
}

impl ToolOutcome {
    fn of(status: ToolStatus) -> Self {
        match status {
            ToolStatus::Running => ToolOutcome::Running,
            ToolStatus::Succeeded => ToolOutcome::Succeeded,
            ToolStatus::Failed => ToolOutcome::Failed,
            ToolStatus::Denied => ToolOutcome::Denied,
            ToolStatus::Unreported => ToolOutcome::Unreported,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            ToolOutcome::Running => "running",
            ToolOutcome::Succeeded => "succeeded",
            ToolOutcome::Failed => "failed",
            ToolOutcome::Denied => "denied",
            ToolOutcome::Unreported => "unreported",
            ToolOutcome::Unknown => "unknown",
        }
    }
}

/// One tool call: its name, one line about it, how it ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ToolCall {
    pub tool_use_id: String,
    pub name: String,
    pub summary: String,
    pub outcome: ToolOutcome,
    /// What kind of call it was (absent in older files: `other`).
    #[serde(default)]
    pub kind: codiva_protocol::tool::ToolKind,
}

/// A text the agent said, or a thinking block, in its place among the turn's tool calls.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Said {
    /// How many of the turn's kept tool calls came before it.
    pub after_tools: usize,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub thinking: bool,
    pub text: Capped,
}

/// How a turn ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Outcome {
    Completed,
    Interrupted,
    Failed,
    NeedsLogin,
    RateLimited,
    #[serde(other)]
    Unknown,
}

impl Outcome {
    fn of(status: Status) -> Option<Self> {
        Some(match status {
            Status::Completed => Outcome::Completed,
            Status::Interrupted => Outcome::Interrupted,
            Status::Failed => Outcome::Failed,
            Status::NeedsLogin => Outcome::NeedsLogin,
            Status::RateLimited => Outcome::RateLimited,
            Status::Starting
            | Status::Running
            | Status::AwaitingPermission
            | Status::AwaitingAnswer
            | Status::Queued => return None,
        })
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Outcome::Completed => "completed",
            Outcome::Interrupted => "interrupted",
            Outcome::Failed => "failed",
            Outcome::NeedsLogin => "needs_login",
            Outcome::RateLimited => "rate_limited",
            Outcome::Unknown => "unknown",
        }
    }
}

/// One turn: from the message that started the work to the settled status that ended it.
///
/// The record follows the session's status, not the agent's own turn count: a message queued
/// behind a running turn keeps the session running, so it lands in the same record.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct TurnRecord {
    pub agent: AgentRef,
    /// Milliseconds since the Unix epoch.
    pub started_at: u64,
    pub ended_at: Option<u64>,
    /// What the user sent (the first one started the turn; later ones were folded into it).
    pub user: Vec<Capped>,
    /// Messages beyond [`MAX_USER_MESSAGES`].
    pub user_omitted: usize,
    /// The agent's last text of the turn.
    pub final_text: Option<Capped>,
    /// Everything the agent said and thought, in order with the tool calls (the last text is
    /// also `final_text`; absent in files of earlier versions).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub said: Vec<Said>,
    /// Texts and thinking blocks beyond [`MAX_SAID`].
    #[serde(skip_serializing_if = "is_zero")]
    pub said_omitted: usize,
    pub tools: Vec<ToolCall>,
    /// Tool calls beyond [`MAX_TOOLS`].
    pub tools_omitted: usize,
    /// `None` while the turn runs.
    pub outcome: Option<Outcome>,
    pub detail: Option<Capped>,
}

impl TurnRecord {
    fn bytes(&self) -> usize {
        let capped = |text: &Capped| text.text.len() + 16;
        ITEM_OVERHEAD
            + self.agent.name.len()
            + self.agent.model.as_ref().map_or(0, String::len)
            + self.user.iter().map(capped).sum::<usize>()
            + self.final_text.as_ref().map_or(0, capped)
            + self
                .said
                .iter()
                .map(|said| capped(&said.text))
                .sum::<usize>()
            + self.detail.as_ref().map_or(0, capped)
            + self
                .tools
                .iter()
                .map(|tool| 48 + tool.tool_use_id.len() + tool.name.len() + tool.summary.len())
                .sum::<usize>()
    }

    fn is_open(&self) -> bool {
        self.outcome.is_none()
    }

    /// Keeps a new text or thinking block in its place after the tool calls so far.
    fn say(&mut self, text: &str, thinking: bool) {
        if self.said.len() >= MAX_SAID {
            self.said_omitted += 1;
            return;
        }
        self.said.push(Said {
            after_tools: self.tools.len(),
            thinking,
            text: Capped::new(text, MAX_SAID_TEXT),
        });
    }

    /// The latest text (or thinking block) changed as it was written: its kept copy follows
    /// (when it is still the last of its kind).
    fn said_again(&mut self, text: &str, thinking: bool) {
        if let Some(said) = self.said.iter_mut().rev().find(|s| s.thinking == thinking) {
            said.text = Capped::new(text, MAX_SAID_TEXT);
        }
    }
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

/// One item of the record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum HistoryItem {
    Turn(TurnRecord),
    /// The session went on with another agent (the handover was built from this record).
    AgentSwitch {
        from: AgentRef,
        to: AgentRef,
        at: u64,
    },
    /// Written by a newer codiva; kept out of rebuilt logs.
    #[serde(other)]
    Unknown,
}

impl HistoryItem {
    fn bytes(&self) -> usize {
        match self {
            HistoryItem::Turn(turn) => turn.bytes(),
            HistoryItem::AgentSwitch { from, to, .. } => {
                ITEM_OVERHEAD + from.label().len() + to.label().len()
            }
            HistoryItem::Unknown => ITEM_OVERHEAD,
        }
    }
}

/// A session's record. Build it with [`History::apply`]; it never grows beyond
/// [`HISTORY_BUDGET`] (plus the turn that runs).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default)]
pub struct History {
    /// The agent the session runs now.
    pub agent: AgentRef,
    /// The session's first instruction, kept even when its turn was dropped.
    pub first_instruction: Option<Capped>,
    pub items: VecDeque<HistoryItem>,
    /// Turns dropped to keep within the budget (oldest first).
    pub dropped_turns: u64,
    /// The size of every item but an open last turn, for the budget.
    #[serde(skip)]
    settled_bytes: usize,
}

impl History {
    pub fn new(agent: &str) -> Self {
        History {
            agent: AgentRef::new(agent),
            ..History::default()
        }
    }

    /// Nothing was recorded (and nothing dropped).
    pub fn is_empty(&self) -> bool {
        self.items.is_empty() && self.dropped_turns == 0
    }

    /// The user messages of the turns kept (counted, not all kept: see `user_omitted`).
    pub fn user_messages(&self) -> usize {
        self.turns()
            .map(|turn| turn.user.len() + turn.user_omitted)
            .sum()
    }

    pub fn turns(&self) -> impl DoubleEndedIterator<Item = &TurnRecord> {
        self.items.iter().filter_map(|item| match item {
            HistoryItem::Turn(turn) => Some(turn),
            _ => None,
        })
    }

    /// The turn that runs now, if any.
    pub fn open_turn(&self) -> Option<&TurnRecord> {
        match self.items.back() {
            Some(HistoryItem::Turn(turn)) if turn.is_open() => Some(turn),
            _ => None,
        }
    }

    fn open_turn_mut(&mut self) -> Option<&mut TurnRecord> {
        match self.items.back_mut() {
            Some(HistoryItem::Turn(turn)) if turn.is_open() => Some(turn),
            _ => None,
        }
    }

    /// Runs `change` on the open turn, or on a new one (started at `now_ms`) when none is.
    fn in_turn(&mut self, now_ms: u64, change: impl FnOnce(&mut TurnRecord)) {
        if let Some(turn) = self.open_turn_mut() {
            change(turn);
            return;
        }
        let mut turn = TurnRecord {
            agent: self.agent.clone(),
            started_at: now_ms,
            ..TurnRecord::default()
        };
        change(&mut turn);
        self.items.push_back(HistoryItem::Turn(turn));
    }

    /// Folds one session event in (`now_ms`: milliseconds since the Unix epoch). Returns
    /// whether the record changed.
    pub fn apply(&mut self, now_ms: u64, event: &SessionEvent) -> bool {
        let changed = match event {
            SessionEvent::Model { model } => {
                let changed = self.agent.model != *model;
                self.agent.model.clone_from(model);
                if let Some(turn) = self.open_turn_mut()
                    && turn.agent.model != *model
                {
                    turn.agent.model.clone_from(model);
                    return true;
                }
                changed
            }
            SessionEvent::Log {
                scope: Scope::Main,
                entry,
                update,
                ..
            } => self.log_entry(now_ms, &entry.kind, *update),
            SessionEvent::Status { status, detail, .. } => match Outcome::of(*status) {
                Some(outcome) => self.close_turn(now_ms, outcome, detail.as_deref()),
                None => false,
            },
            _ => false,
        };
        if changed {
            self.enforce_budget();
        }
        changed
    }

    fn log_entry(&mut self, now_ms: u64, kind: &EntryKind, update: bool) -> bool {
        match (kind, update) {
            (EntryKind::User { text }, false) => {
                if self.first_instruction.is_none() {
                    self.first_instruction = Some(Capped::new(text, MAX_USER_TEXT));
                }
                self.in_turn(now_ms, |turn| {
                    if turn.user.len() < MAX_USER_MESSAGES {
                        turn.user.push(Capped::new(text, MAX_USER_TEXT));
                    } else {
                        turn.user_omitted += 1;
                    }
                });
                true
            }
            (EntryKind::Assistant { text }, false) if !text.trim().is_empty() => {
                self.in_turn(now_ms, |turn| {
                    turn.final_text = Some(Capped::new(text, MAX_FINAL_TEXT));
                    turn.say(text, false);
                });
                true
            }
            (EntryKind::Thinking { text }, false) if !text.trim().is_empty() => {
                self.in_turn(now_ms, |turn| turn.say(text, true));
                true
            }
            (EntryKind::Thinking { text }, true) if !text.trim().is_empty() => {
                match self.open_turn_mut() {
                    Some(turn) => {
                        turn.said_again(text, true);
                        true
                    }
                    None => false,
                }
            }
            (EntryKind::Tool(tool), false) => {
                self.in_turn(now_ms, |turn| {
                    if turn.tools.len() < MAX_TOOLS {
                        turn.tools.push(tool_call(tool));
                    } else {
                        turn.tools_omitted += 1;
                    }
                });
                true
            }
            // Updates only change the turn that runs (a late one changes nothing).
            (EntryKind::Assistant { text }, true) if !text.trim().is_empty() => {
                match self.open_turn_mut() {
                    Some(turn) => {
                        turn.final_text = Some(Capped::new(text, MAX_FINAL_TEXT));
                        turn.said_again(text, false);
                        true
                    }
                    None => false,
                }
            }
            (EntryKind::Tool(tool), true) => {
                let Some(turn) = self.open_turn_mut() else {
                    return false;
                };
                match turn
                    .tools
                    .iter_mut()
                    .find(|call| call.tool_use_id == tool.tool_use_id)
                {
                    Some(call) => {
                        *call = tool_call(tool);
                        true
                    }
                    None => false,
                }
            }
            _ => false,
        }
    }

    fn close_turn(&mut self, now_ms: u64, outcome: Outcome, detail: Option<&str>) -> bool {
        let Some(turn) = self.open_turn_mut() else {
            return false;
        };
        turn.outcome = Some(outcome);
        turn.ended_at = Some(now_ms);
        turn.detail = detail.map(|detail| Capped::new(detail, MAX_DETAIL));
        let bytes = turn.bytes();
        self.settled_bytes += bytes;
        true
    }

    /// A turn left open by a codiva that stopped (or crashed) ends as interrupted.
    pub fn settle_open_turn(&mut self, now_ms: u64) {
        if self.close_turn(
            now_ms,
            Outcome::Interrupted,
            Some("codiva stopped before the turn ended"),
        ) {
            self.enforce_budget();
        }
    }

    /// Marks that the session goes on with another agent.
    pub fn switch_agent(&mut self, now_ms: u64, to: AgentRef) {
        self.settle_open_turn(now_ms);
        let from = std::mem::replace(&mut self.agent, to.clone());
        let item = HistoryItem::AgentSwitch {
            from,
            to,
            at: now_ms,
        };
        self.settled_bytes += item.bytes();
        self.items.push_back(item);
        self.enforce_budget();
    }

    /// Recomputes what the budget needs after loading from disk (and enforces it: a file may
    /// have been written with a larger budget).
    pub fn after_load(&mut self) {
        self.settled_bytes = self
            .items
            .iter()
            .filter(|item| !matches!(item, HistoryItem::Turn(turn) if turn.is_open()))
            .map(HistoryItem::bytes)
            .sum();
        self.enforce_budget();
    }

    /// Approximate size in bytes (what the budget counts).
    pub fn bytes(&self) -> usize {
        self.settled_bytes + self.open_turn().map_or(0, TurnRecord::bytes)
    }

    fn enforce_budget(&mut self) {
        while self.bytes() > HISTORY_BUDGET {
            let front_is_open =
                matches!(self.items.front(), Some(HistoryItem::Turn(turn)) if turn.is_open());
            if front_is_open {
                // Only the running turn is left; its own caps bound it.
                break;
            }
            let Some(item) = self.items.pop_front() else {
                break;
            };
            self.settled_bytes = self.settled_bytes.saturating_sub(item.bytes());
            if matches!(item, HistoryItem::Turn(_)) {
                self.dropped_turns += 1;
            }
        }
    }

    /// What the next agent is told when the session switches to it: the branch, the first and
    /// the latest instructions, and the latest turns (each agent's), newest kept first, within
    /// `budget` bytes. Model output in it is the earlier agent's text, given as such.
    pub fn handover(&self, branch: &str, budget: usize) -> String {
        let mut head = format!(
            "[codiva handover] This coding session was worked on by another agent until now; \
             you continue it. The work is on branch {branch}, in this working directory (its \
             files and commits are the current state). What happened so far, oldest first:\n"
        );
        if let Some(first) = &self.first_instruction {
            head.push_str(&format!("\nFirst instruction: {}\n", first.display()));
        }
        let tail = "\n[end of handover] The user's new message follows.";
        let room = budget.saturating_sub(head.len() + tail.len());
        let mut turns: Vec<String> = Vec::new();
        let mut used = 0;
        for turn in self.turns().rev() {
            let text = turn_summary(turn);
            if used + text.len() > room {
                if turns.is_empty() {
                    turns.push(cut_at_char(&text, room).to_owned());
                }
                break;
            }
            used += text.len();
            turns.push(text);
        }
        let shown = turns.len();
        let earlier = self.turns().count().saturating_sub(shown) as u64 + self.dropped_turns;
        if earlier > 0 {
            head.push_str(&format!("\n({earlier} earlier turns left out)\n"));
        }
        turns.reverse();
        let mut out = head;
        for turn in turns {
            out.push_str(&turn);
        }
        out.push_str(tail);
        out
    }

    /// The record as log entries, for a restored session whose transcript is gone.
    pub fn log_entries(&self) -> Vec<EntryKind> {
        let note = |text: String| EntryKind::Note {
            level: NoteLevel::Info,
            text,
            code: None,
        };
        let mut entries = Vec::new();
        if self.dropped_turns > 0 {
            entries.push(note(format!(
                "{} earlier turns are not in codiva's summary (it keeps the latest)",
                self.dropped_turns
            )));
        }
        for item in &self.items {
            match item {
                HistoryItem::Turn(turn) => {
                    for text in &turn.user {
                        entries.push(EntryKind::User {
                            text: text.display(),
                        });
                    }
                    if turn.user_omitted > 0 {
                        entries.push(note(format!(
                            "{} more messages in this turn are not in the summary",
                            turn.user_omitted
                        )));
                    }
                    // What was said and thought goes before the tool call it preceded; the
                    // last text is the final one (kept longer), in its place.
                    let final_at = turn.said.iter().rposition(|s| !s.thinking).filter(|&at| {
                        turn.final_text
                            .as_ref()
                            .is_some_and(|text| text.text.starts_with(&turn.said[at].text.text))
                    });
                    let mut said = turn.said.iter().enumerate().peekable();
                    let mut said_up_to = |entries: &mut Vec<EntryKind>, tools: usize| {
                        while let Some((at, next)) = said.next_if(|(_, s)| s.after_tools <= tools) {
                            let text = match &turn.final_text {
                                Some(text) if final_at == Some(at) => text.display(),
                                _ => next.text.display(),
                            };
                            entries.push(if next.thinking {
                                EntryKind::Thinking { text }
                            } else {
                                EntryKind::Assistant { text }
                            });
                        }
                    };
                    for (index, tool) in turn.tools.iter().enumerate() {
                        said_up_to(&mut entries, index);
                        entries.push(EntryKind::Tool(Box::new(ToolEntry {
                            tool_use_id: tool.tool_use_id.clone(),
                            name: tool.name.clone(),
                            summary: tool.summary.clone(),
                            view: codiva_protocol::tool::ToolCallView {
                                tool_kind: tool.kind,
                                title: tool.name.clone(),
                                ..Default::default()
                            },
                            input: serde_json::Value::Null,
                            status: match tool.outcome {
                                ToolOutcome::Succeeded => ToolStatus::Succeeded,
                                ToolOutcome::Denied => ToolStatus::Denied,
                                ToolOutcome::Unreported => ToolStatus::Unreported,
                                // Never finished: it cannot run any more.
                                ToolOutcome::Running
                                | ToolOutcome::Failed
                                | ToolOutcome::Unknown => ToolStatus::Failed,
                            },
                            result: None,
                            duration_ms: None,
                        })));
                    }
                    said_up_to(&mut entries, usize::MAX);
                    if turn.tools_omitted > 0 {
                        entries.push(note(format!(
                            "{} more tool calls in this turn are not in the summary",
                            turn.tools_omitted
                        )));
                    }
                    if turn.said_omitted > 0 {
                        entries.push(note(format!(
                            "{} more texts in this turn are not in the summary",
                            turn.said_omitted
                        )));
                    }
                    // A final text not among those kept (a file of an earlier version, or
                    // more texts than are kept): last.
                    if let Some(text) = &turn.final_text
                        && final_at.is_none()
                    {
                        entries.push(EntryKind::Assistant {
                            text: text.display(),
                        });
                    }
                    match (turn.outcome, &turn.detail) {
                        (Some(Outcome::Completed) | None, _) => {}
                        (Some(outcome), detail) => entries.push(note(match detail {
                            Some(detail) => format!("turn {}: {}", outcome.as_str(), detail.text),
                            None => format!("turn {}", outcome.as_str()),
                        })),
                    }
                }
                HistoryItem::AgentSwitch { from, to, .. } => entries.push(note(format!(
                    "switched from {} to {}",
                    from.label(),
                    to.label()
                ))),
                HistoryItem::Unknown => {}
            }
        }
        entries
    }
}

fn tool_call(tool: &ToolEntry) -> ToolCall {
    ToolCall {
        tool_use_id: tool.tool_use_id.clone(),
        name: cut_at_char(&tool.name, MAX_TOOL_SUMMARY).to_owned(),
        summary: codiva_protocol::text::one_line(cut_at_char(&tool.summary, MAX_TOOL_SUMMARY), 120),
        outcome: ToolOutcome::of(tool.status),
        kind: tool.view.tool_kind,
    }
}

#[cfg(test)]
#[path = "history_tests.rs"]
mod tests;

/// One turn for a handover: who worked, what the user asked, the tools, what the agent said
/// last, how it ended.
fn turn_summary(turn: &TurnRecord) -> String {
    let mut out = format!("\n--- A turn of {}:\n", turn.agent.label());
    for text in &turn.user {
        out.push_str(&format!("User: {}\n", text.display()));
    }
    if !turn.tools.is_empty() {
        let tools: Vec<String> = turn
            .tools
            .iter()
            .map(|tool| format!("{} {} ({})", tool.name, tool.summary, tool.outcome.as_str()))
            .collect();
        out.push_str(&format!("Tools: {}\n", tools.join("; ")));
    }
    if let Some(text) = &turn.final_text {
        out.push_str(&format!("Agent: {}\n", text.display()));
    }
    if let Some(outcome) = turn.outcome {
        out.push_str(&format!("Ended: {}\n", outcome.as_str()));
    }
    out
}
