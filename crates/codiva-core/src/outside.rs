//! Conversations the agents recorded themselves that codiva does not manage (begun outside
//! codiva, in the repository's root or one of its worktrees): what every agent's listing and
//! reading share. Each provider finds its own records (`Provider::outside_conversations`,
//! `Provider::read_outside`); this module bounds what is read of them — a record's head for
//! its first instruction, its end for its log — filters the list, and copies a record for a
//! conversation carried to a new worktree. Not codiva's own history of its sessions
//! ([`crate::history`]).

use std::collections::BTreeSet;
use std::fs::{File, Metadata};
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom, Write as _};
use std::path::{Path, PathBuf};

use codiva_protocol::log::EntryKind;
use codiva_protocol::outside::{HistoryListFailure, HistoryListResult, OutsideConversation};

use crate::provider::Providers;

/// How much of a record's start is read for its first instruction.
pub const HEAD_BYTES: u64 = 256 * 1024;
/// How much of a record's end is read to rebuild its log (the log keeps the newest entries
/// within its budget anyway; a larger record's start is not read).
pub const READ_WINDOW: u64 = 16 * 1024 * 1024;
/// Most records of one directory an agent looks at for a listing (the newest).
pub const MAX_RECORDS: usize = 2000;
/// Most conversations one listing returns.
pub const MAX_LISTED: usize = 500;
/// Longest first instruction listed, in characters.
pub const MAX_INSTRUCTION_CHARS: usize = 200;

/// A conversation's log rebuilt from the end of its record.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct OutsideLog {
    pub entries: Vec<EntryKind>,
    /// Bytes at the start of the record that were not read.
    pub skipped_bytes: u64,
    /// Older entries dropped to keep within the log's budget.
    pub dropped_entries: u64,
}

/// How long an agent that lists its conversations itself (ACP `session/list`) may take.
pub const LIST_LIMIT: std::time::Duration = std::time::Duration::from_secs(20);

/// The conversations every installed agent recorded for `dirs` (`env`: its processes'), but those codiva manages
/// (`managed`: agent conversation ids), that match `query`; newest first, at most
/// [`MAX_LISTED`] (blocking IO). Agents that list their conversations themselves (ACP's
/// `session/list`) are asked side by side, each at most [`LIST_LIMIT`]; one that fails is
/// named in `unavailable` and the rest are listed. A conversation such an agent lists that
/// another agent's records list already (an ACP wrapper of Claude Code or Codex lists the same
/// conversations, by the same id) is listed once, as the records' agent's.
pub fn list(
    providers: &Providers,
    dirs: &[PathBuf],
    env: &crate::process::EnvPolicy,
    managed: &BTreeSet<String>,
    query: Option<&str>,
) -> HistoryListResult {
    let installed = providers.installed();
    let (native, listed) = std::thread::scope(|scope| {
        let asked: Vec<_> = installed
            .iter()
            .map(|provider| {
                let provider = (*provider).clone();
                scope.spawn(move || {
                    let listed = provider.listed_conversations(dirs, env, LIST_LIMIT);
                    (provider.id().to_owned(), listed)
                })
            })
            .collect();
        let native: Vec<OutsideConversation> = installed
            .iter()
            .filter_map(|provider| provider.outside_conversations(dirs, env))
            .flatten()
            .collect();
        let listed: Vec<_> = asked
            .into_iter()
            .filter_map(|handle| handle.join().ok())
            .collect();
        (native, listed)
    });
    let native_ids: BTreeSet<String> = native.iter().map(|c| c.id.clone()).collect();
    let mut unavailable = Vec::new();
    let mut conversations = native;
    for (agent, listed) in listed {
        match listed {
            None => {}
            Some(Ok(found)) => conversations.extend(
                found
                    .into_iter()
                    .filter(|conversation| !native_ids.contains(&conversation.id)),
            ),
            Some(Err(error)) => unavailable.push(HistoryListFailure {
                agent,
                error: codiva_protocol::text::sanitize_title_to(&error.to_string(), 300)
                    .unwrap_or_default(),
            }),
        }
    }
    let mut conversations: Vec<OutsideConversation> = conversations
        .into_iter()
        .filter(|conversation| !managed.contains(&conversation.id))
        .filter(|conversation| query.is_none_or(|query| conversation.matches(query)))
        .collect();
    conversations.sort_by(|a, b| {
        b.modified_ms
            .cmp(&a.modified_ms)
            .then_with(|| a.id.cmp(&b.id))
    });
    let more = conversations.len() > MAX_LISTED;
    conversations.truncate(MAX_LISTED);
    HistoryListResult {
        conversations,
        more,
        unavailable,
    }
}

/// An agent's conversation id as a file name may hold it: letters, digits, `-`, `_` and `.`
/// (not leading), at most 128 bytes. Anything else names no record.
pub fn valid_id(id: &str) -> bool {
    !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
}

/// A first instruction fit for a list row (user-written text from outside): one line, no
/// control or bidirectional-override characters, at most [`MAX_INSTRUCTION_CHARS`].
pub fn instruction_line(text: &str) -> Option<String> {
    codiva_protocol::text::sanitize_title_to(text, MAX_INSTRUCTION_CHARS)
}

/// When the file was last written, in milliseconds since the Unix epoch (0 when unknown).
pub fn modified_ms(meta: &Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|time| time.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |since| {
            u64::try_from(since.as_millis()).unwrap_or(u64::MAX)
        })
}

/// A reader of the last `window` bytes of `record`, from the first line that starts in them
/// (all of it when it is no longer), and how many bytes before that are not read.
pub fn tail<R: Read + Seek>(mut record: R, window: u64) -> io::Result<(BufReader<R>, u64)> {
    let size = record.seek(SeekFrom::End(0))?;
    if size <= window {
        record.seek(SeekFrom::Start(0))?;
        return Ok((BufReader::with_capacity(256 * 1024, record), 0));
    }
    // One byte before the window: a line that starts exactly at the window's start is kept.
    let start = size - window - 1;
    record.seek(SeekFrom::Start(start))?;
    let mut reader = BufReader::with_capacity(256 * 1024, record);
    let mut skipped = start;
    loop {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            return Ok((reader, skipped));
        }
        match available.iter().position(|&b| b == b'\n') {
            Some(end) => {
                reader.consume(end + 1);
                skipped += end as u64 + 1;
                return Ok((reader, skipped));
            }
            None => {
                let len = available.len();
                reader.consume(len);
                skipped += len as u64;
            }
        }
    }
}

/// Copies `from` to `to` through a temporary file beside it, renamed into place once written
/// and synced, so `to` is never seen half written.
pub fn copy_file(from: &Path, to: &Path) -> io::Result<()> {
    let mut source = File::open(from)?;
    let temp = to.with_extension(format!("codiva-{}.tmp", std::process::id()));
    let written = (|| {
        let mut target = File::create(&temp)?;
        io::copy(&mut source, &mut target)?;
        target.flush()?;
        target.sync_all()
    })();
    if let Err(error) = written {
        let _ = std::fs::remove_file(&temp);
        return Err(error);
    }
    std::fs::rename(&temp, to)
}

#[cfg(test)]
#[path = "outside_tests.rs"]
mod tests;
