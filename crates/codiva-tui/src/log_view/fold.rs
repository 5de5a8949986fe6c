//! Folding: three or more consecutive finished tool calls (nothing else between them) show as
//! one "N tools" line, drawn by the first of them (the head); the others draw nothing while the
//! fold is closed. Subagent (`Agent`/`Task`) calls never fold: they are cards of their own.

use codiva_protocol::log::{EntryKind, LogEntry, ToolStatus};

use super::cards::is_agent;

/// Fewest calls that fold.
pub(crate) const MIN_FOLD: usize = 3;

/// An entry's part in a fold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Fold {
    None,
    /// The first call of a fold of `len` calls (itself included).
    Head {
        len: usize,
    },
    /// A later call of the fold that starts at entry `head`; `last`: the fold's last call.
    Member {
        head: u64,
        last: bool,
    },
}

/// A tool call that can take part in a fold (finished or not).
pub(crate) fn foldable(entry: &LogEntry) -> bool {
    matches!(&entry.kind, EntryKind::Tool(tool) if !is_agent(tool))
}

fn finished(entry: &LogEntry) -> bool {
    matches!(&entry.kind, EntryKind::Tool(tool) if tool.status != ToolStatus::Running)
}

/// The fold roles of `entries` (a whole log or a stretch that starts and ends at a
/// non-foldable entry or an end of the log).
pub(crate) fn roles<'a>(entries: impl ExactSizeIterator<Item = &'a LogEntry>) -> Vec<Fold> {
    let entries: Vec<&LogEntry> = entries.collect();
    let mut roles = vec![Fold::None; entries.len()];
    let mut start = 0;
    while start < entries.len() {
        let ok = |e: &LogEntry| foldable(e) && finished(e);
        if !ok(entries[start]) {
            start += 1;
            continue;
        }
        let len = entries[start..].iter().take_while(|e| ok(e)).count();
        if len >= MIN_FOLD {
            let head = entries[start].id;
            roles[start] = Fold::Head { len };
            for (k, role) in roles[start + 1..start + len].iter_mut().enumerate() {
                *role = Fold::Member {
                    head,
                    last: k + 2 == len,
                };
            }
        }
        start += len;
    }
    roles
}

#[cfg(test)]
mod tests {
    use codiva_protocol::agent::NoteLevel;
    use codiva_protocol::log::ToolEntry;

    use super::*;

    fn tool(id: u64, name: &str, status: ToolStatus) -> LogEntry {
        LogEntry {
            id,
            at_ms: 0,
            kind: EntryKind::Tool(Box::new(ToolEntry {
                tool_use_id: format!("t{id}"),
                name: name.into(),
                summary: String::new(),
                view: codiva_core::claude::tool_view::tool_view(name, &serde_json::Value::Null),
                input: serde_json::Value::Null,
                status,
                result: None,
                duration_ms: None,
            })),
        }
    }

    #[test]
    fn three_finished_calls_in_a_row_fold() {
        use ToolStatus::{Failed, Running, Succeeded};
        let note = LogEntry {
            id: 3,
            at_ms: 0,
            kind: EntryKind::Note {
                level: NoteLevel::Info,
                text: "x".into(),
                code: None,
            },
        };
        let log = [
            tool(0, "Read", Succeeded),
            tool(1, "Read", Failed),
            tool(2, "Bash", Succeeded),
            note,
            tool(4, "Read", Succeeded),
            tool(5, "Read", Succeeded),
            tool(6, "Read", Running),
            tool(7, "Agent", Succeeded),
            tool(8, "Read", Succeeded),
            tool(9, "Read", Succeeded),
        ];
        let roles = roles(log.iter());
        assert_eq!(
            roles,
            [
                Fold::Head { len: 3 },
                Fold::Member {
                    head: 0,
                    last: false
                },
                Fold::Member {
                    head: 0,
                    last: true
                },
                Fold::None,
                Fold::None,
                Fold::None,
                Fold::None,
                Fold::None,
                Fold::None,
                Fold::None,
            ]
        );
    }
}
