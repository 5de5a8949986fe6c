//! Assistant messages the log cut at the memory cap (`codiva_protocol::text::cut`): the block
//! shows the kept part and, instead of the core's marker, a dim row that says how much is hidden
//! and that Enter opens the whole message (read back from the agent's transcript into the
//! full-message view). The log keeps a reply's end, so that row comes first (`↑ 300.0 KiB above
//! not shown — Enter for all`), where the streaming reply said what it no longer kept: the
//! rows its reader followed stay where they were when it completes. A message cut by an older
//! log (its start kept) has the row last. Also which cut message Enter opens: the lowest one on
//! screen.

use codiva_protocol::log::EntryKind;
use codiva_protocol::text::{Kept, cut};
use ratatui::text::Line;

use super::LogView;
use crate::i18n::{ViewText, tf};
use crate::theme;
use crate::width::wrap_text;

/// A byte count for people: `512 B`, `300.0 KiB`, `1.5 MiB`.
pub fn byte_size(bytes: usize) -> String {
    const KIB: f64 = 1024.0;
    let value = bytes as f64;
    if bytes < 1024 {
        format!("{bytes} B")
    } else if value < KIB * KIB {
        format!("{:.1} KiB", value / KIB)
    } else {
        format!("{:.1} MiB", value / (KIB * KIB))
    }
}

/// An assistant text as the log shows it: the part to render as Markdown, and the dim rows
/// (wrapped to `width` cells) that say what the log cut, before it or after it.
pub(super) struct Split<'a> {
    pub text: &'a str,
    pub header: Vec<Line<'static>>,
    pub footer: Vec<Line<'static>>,
}

pub(super) fn split(text: &str, width: usize) -> Split<'_> {
    let Some(cut) = cut(text) else {
        return Split {
            text,
            header: Vec::new(),
            footer: Vec::new(),
        };
    };
    match cut.end {
        Kept::Tail => Split {
            text: cut.kept,
            header: dim_rows(&tf(ViewText::CutHeader, &[&byte_size(cut.cut)]), width),
            footer: Vec::new(),
        },
        Kept::Head => Split {
            text: cut.kept,
            header: Vec::new(),
            footer: dim_rows(&tf(ViewText::CutFooter, &[&byte_size(cut.cut)]), width),
        },
    }
}

/// `text` wrapped to `width` cells, dim.
pub(super) fn dim_rows(text: &str, width: usize) -> Vec<Line<'static>> {
    wrap_text(text, width.max(1))
        .into_iter()
        .map(|row| Line::styled(text[row.start..row.end].to_owned(), theme::dim()))
        .collect()
}

/// The whole size of an assistant message the log cut (the kept part and the cut bytes).
fn cut_size(kind: &EntryKind) -> Option<usize> {
    match kind {
        EntryKind::Assistant { text } => cut(text).map(|cut| cut.kept.len() + cut.cut),
        _ => None,
    }
}

/// A cut message Enter opens: in the main log, or (`subagent`: the tool-use id of its call) in a
/// subagent's log shown in its open card.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CutMessage {
    pub subagent: Option<String>,
    pub entry: u64,
    pub size: usize,
}

impl LogView {
    /// The lowest cut assistant message that the last frame showed (a row of it): in the main
    /// log, or the latest one in the log of a subagent whose open card was on screen.
    pub fn cut_message_in_view(&self) -> Option<CutMessage> {
        if self.index_width == 0 || self.height == 0 {
            return None;
        }
        let view = self.viewport(usize::from(self.height));
        let end = view.top + view.rows;
        let (mut index, offset) = self.index.find(view.top);
        let mut row = view.top.saturating_sub(offset);
        let mut found = None;
        while index < self.entries.len() && row < end {
            let stored = &self.entries[index];
            if self.index.height(index) > 0 {
                if let Some(size) = cut_size(&stored.entry.kind) {
                    found = Some(CutMessage {
                        subagent: None,
                        entry: stored.entry.id,
                        size,
                    });
                } else if let Some(cut) = self.cut_in_open_subagent(&stored.entry) {
                    found = Some(cut);
                }
            }
            row += self.index.height(index);
            index += 1;
        }
        found
    }
}

impl LogView {
    /// The latest cut message of the subagent whose call is `entry`, when its card is open.
    fn cut_in_open_subagent(&self, entry: &codiva_protocol::log::LogEntry) -> Option<CutMessage> {
        let EntryKind::Tool(tool) = &entry.kind else {
            return None;
        };
        if !self.look.is_open(super::block::CardKey::Entry(entry.id)) {
            return None;
        }
        let subagent = self.look.subagents.get(&tool.tool_use_id)?;
        subagent.entries.iter().rev().find_map(|nested| {
            cut_size(&nested.kind).map(|size| CutMessage {
                subagent: Some(tool.tool_use_id.clone()),
                entry: nested.id,
                size,
            })
        })
    }
}
