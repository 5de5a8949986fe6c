//! Claude Code's conversations begun outside codiva: its transcripts for a directory listed
//! (one `<id>.jsonl` per conversation in the CLI's project directory of that directory), one
//! read for reading only with bounded memory, and one carried to another directory so that
//! `--resume <id>` finds it there (the CLI looks for a conversation in the project directory
//! of the directory it runs in).

use std::fs::File;
use std::io::{self, BufReader, Read as _};
use std::path::Path;

use codiva_protocol::outside::OutsideConversation;

use super::transcript::{self, TranscriptError};
use crate::outside::{self as records, OutsideLog};

/// Lists the transcripts of conversations that ran in `dir` (its canonical form too), the
/// newest [`records::MAX_RECORDS`]; each is read from its head only (at most
/// [`records::HEAD_BYTES`]) for its first instruction.
pub fn list(home: &Path, dir: &Path) -> Vec<OutsideConversation> {
    let mut project_dirs = vec![transcript::project_dir(home, dir)];
    if let Ok(real) = dir.canonicalize() {
        let other = transcript::project_dir(home, &real);
        if !project_dirs.contains(&other) {
            project_dirs.push(other);
        }
    }
    let mut found: Vec<(u64, String, std::path::PathBuf, u64)> = Vec::new();
    for project in project_dirs {
        let Ok(entries) = std::fs::read_dir(&project) else {
            continue;
        };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|ext| ext != "jsonl") {
                continue;
            }
            let (Some(id), Ok(meta)) = (
                path.file_stem().and_then(|stem| stem.to_str()),
                entry.metadata(),
            ) else {
                continue;
            };
            if !meta.is_file()
                || !records::valid_id(id)
                || found.iter().any(|(_, seen, _, _)| seen == id)
            {
                continue;
            }
            found.push((records::modified_ms(&meta), id.to_owned(), path, meta.len()));
        }
    }
    found.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    found.truncate(records::MAX_RECORDS);
    found
        .into_iter()
        .map(|(modified_ms, id, path, size_bytes)| {
            let first = File::open(&path).ok().and_then(|file| {
                let head = BufReader::new(file.take(records::HEAD_BYTES));
                transcript::first_user_text(head).ok().flatten()
            });
            OutsideConversation {
                agent: "claude".to_owned(),
                id,
                cwd: dir.to_string_lossy().into_owned(),
                modified_ms,
                size_bytes,
                first_instruction: first.and_then(|text| records::instruction_line(&text)),
            }
        })
        .collect()
}

/// Conversation `id` that ran in `cwd`, rebuilt from the end of its transcript (at most
/// `window` bytes of it are read).
pub fn read(home: &Path, cwd: &Path, id: &str, window: u64) -> Result<OutsideLog, TranscriptError> {
    let path = existing(home, cwd, id)?;
    let io_error = |source: io::Error| TranscriptError::Io {
        path: path.clone(),
        source,
    };
    let file = File::open(&path).map_err(io_error)?;
    let (reader, skipped_bytes) = records::tail(file, window).map_err(io_error)?;
    let (entries, dropped_entries, _) = transcript::rebuild_main(reader).map_err(io_error)?;
    Ok(OutsideLog {
        entries,
        skipped_bytes,
        dropped_entries,
    })
}

/// Copies conversation `id`'s transcript (and its subagents' files) from `from`'s project
/// directory to `to`'s, where the CLI run in `to` resumes it.
pub fn carry(home: &Path, id: &str, from: &Path, to: &Path) -> Result<(), TranscriptError> {
    let source = existing(home, from, id)?;
    let target_dir = transcript::project_dir(home, to);
    let io_error = |source: io::Error| TranscriptError::Io {
        path: target_dir.clone(),
        source,
    };
    std::fs::create_dir_all(&target_dir).map_err(io_error)?;
    records::copy_file(&source, &target_dir.join(format!("{id}.jsonl"))).map_err(io_error)?;
    if let Some(source_dir) = source.parent() {
        let subagents = source_dir.join(id).join("subagents");
        if let Ok(entries) = std::fs::read_dir(&subagents) {
            let target = target_dir.join(id).join("subagents");
            std::fs::create_dir_all(&target).map_err(io_error)?;
            for entry in entries.flatten() {
                if entry.file_type().is_ok_and(|kind| kind.is_file()) {
                    records::copy_file(&entry.path(), &target.join(entry.file_name()))
                        .map_err(io_error)?;
                }
            }
        }
    }
    Ok(())
}

/// The transcript of `id` for `cwd` as given or in its canonical form.
fn existing(home: &Path, cwd: &Path, id: &str) -> Result<std::path::PathBuf, TranscriptError> {
    let path = transcript::transcript_path(home, cwd, id);
    if path.is_file() {
        return Ok(path);
    }
    if let Ok(real) = cwd.canonicalize() {
        let other = transcript::transcript_path(home, &real, id);
        if other.is_file() {
            return Ok(other);
        }
    }
    Err(TranscriptError::NotFound { path })
}

#[cfg(test)]
#[path = "outside_tests.rs"]
mod tests;
