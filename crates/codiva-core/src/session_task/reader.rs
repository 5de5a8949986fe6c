//! The agent's stdout, read in batches: every line one read brought in goes to the session task
//! as one message (its events are reduced together and leave in one flush), and the wire log is
//! written per batch and flushed before the batch is handed over (a line is on disk before
//! anything it caused is seen).

use tokio::sync::mpsc;

use super::{FromAgent, SharedWireLog};
use crate::process::{LineReader, PacedPipe, ProcessControl, ReadLine};
use crate::wire_log::Direction;

/// The most lines handed over as one message (a burst is cut into messages of this size).
const MAX_BATCH: usize = 256;

/// Reads the agent's stdout until EOF, then waits for the process and reports its exit, so
/// that the exit always comes after the last line.
pub(super) async fn read_agent(
    reader: LineReader<tokio::process::ChildStdout>,
    control: ProcessControl,
    epoch: u64,
    tx: mpsc::Sender<FromAgent>,
    wire: Option<SharedWireLog>,
) {
    match reader.try_map_inner(PacedPipe::new) {
        Ok(reader) => read_lines(reader, epoch, &tx, wire.as_ref()).await,
        // Cannot happen short of a broken runtime; the agent then sees its stdout closed and
        // ends, and its exit (with its stderr) is what the session shows.
        Err(err) => tracing::warn!(%err, "cannot take the agent's stdout over"),
    }
    let info = control.wait().await;
    let _ = tx
        .send(FromAgent::Exited {
            epoch,
            info,
            stderr: control.stderr_tail(),
        })
        .await;
}

async fn read_lines(
    mut reader: LineReader<PacedPipe>,
    epoch: u64,
    tx: &mpsc::Sender<FromAgent>,
    wire: Option<&SharedWireLog>,
) {
    loop {
        let first = match reader.next_line().await {
            Ok(Some(item)) => item,
            Ok(None) => return,
            Err(err) => {
                tracing::warn!(%err, "reading the agent's stdout failed");
                return;
            }
        };
        let lines = batch(first, &mut reader, wire);
        if lines.is_empty() {
            continue;
        }
        if tx.send(FromAgent::Lines { epoch, lines }).await.is_err() {
            return;
        }
    }
}

/// `first` and every whole line already buffered after it (up to [`MAX_BATCH`]), without blank
/// lines, each written to the wire log, which is flushed.
fn batch(
    first: ReadLine,
    reader: &mut LineReader<PacedPipe>,
    wire: Option<&SharedWireLog>,
) -> Vec<ReadLine> {
    let mut lines = Vec::new();
    let mut wire = wire.and_then(|wire| wire.lock().ok());
    let mut item = Some(first);
    while let Some(read) = item.take() {
        match read {
            ReadLine::Line(bytes) if bytes.iter().all(u8::is_ascii_whitespace) => {}
            ReadLine::Line(bytes) => {
                if let Some(wire) = wire.as_mut() {
                    wire.write(Direction::FromAgent, &bytes);
                }
                lines.push(ReadLine::Line(bytes));
            }
            ReadLine::Oversized { bytes } => {
                if let Some(wire) = wire.as_mut() {
                    wire.write(
                        Direction::Note,
                        format!("skipped an oversized line of {bytes} bytes").as_bytes(),
                    );
                }
                lines.push(ReadLine::Oversized { bytes });
            }
        }
        if lines.len() < MAX_BATCH {
            item = reader.next_buffered_line();
        }
    }
    if let Some(wire) = wire.as_mut() {
        wire.flush();
    }
    lines
}
