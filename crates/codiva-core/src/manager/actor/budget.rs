//! Agents kept in budget, the manager's part (the session task stops idle agents itself,
//! `session_task/idle.rs`).
//!
//! **Agent slots** (`max_running_agents`). A session holds a slot while its agent has a turn
//! in progress (`in_turn`): from the moment the manager passes it a message until its task
//! reports a settled status (completed, interrupted, failed, …); a turn the agent starts by
//! itself (its status turns running) holds one too. An agent
//! process idle between turns holds none. A message that would start a turn while every slot is
//! held waits in the session's record (`held`); the session shows `queued` (its own status kept
//! in `queued_over`) and the sessions queued start in order (FIFO) as slots free. A message to
//! a session that already runs a turn goes to its agent at once (the agent folds or queues it
//! itself). Interrupting, discarding, merging or stopping a queued session takes it out of the
//! queue; its held messages are not sent, and its log gets each one back in full (a `not_sent`
//! note), so no text the user wrote is lost.
//!
//! **Resources**. Every `sample_every` (~2 s), and only while some session has a live agent
//! process, one job reads `/proc` once for every agent's process tree (`procfs::UsageScan`:
//! its process group and every descendant by parent pid — Claude Code's Bash tools run in
//! sessions of their own; the machine's other processes are read once, not every pass):
//! resident memory and CPU (the tree's CPU ticks since the last sample
//! over the time between them). The sessions whose numbers changed go out as one `Resources` event per sample.

use std::collections::HashMap;
use std::sync::atomic::Ordering;

use codiva_protocol::UserInput;
use codiva_protocol::manager::{ManagerEvent, ResourceUsage, SessionResources};
use codiva_protocol::session::Status;
use tokio::time::Instant;

use super::Actor;
use super::record::Record;
use crate::manager::ManagerError;
use crate::process::procfs;
use crate::session::SessionCommand;

/// What the sampling keeps between two samples.
#[derive(Default)]
pub(super) struct Sampler {
    /// A sample is being read.
    running: bool,
    /// Each group's CPU ticks at the last sample, and when.
    last: HashMap<u32, (u64, Instant)>,
    ticks_per_second: Option<u64>,
    /// What the passes over `/proc` remember (taken by the job that reads a sample).
    scan: procfs::UsageScan,
}

/// The session's agent has a turn in progress (or was just given a message that starts one).
fn holds_slot(record: &Record) -> bool {
    record.in_turn
        && record.commands.is_some()
        && record.queued_over.is_none()
        && record.has_worktree()
}

impl Actor {
    fn running_agents(&self) -> usize {
        self.records.values().filter(|r| holds_slot(r)).count()
    }

    fn slot_free(&self) -> bool {
        self.options
            .budget
            .max_running_agents
            .is_none_or(|cap| self.running_agents() < cap)
    }

    /// Passes a message to the session's task, or holds it (the session `queued`) until an
    /// agent slot frees.
    pub(super) fn submit(&mut self, id: &str, input: UserInput) -> Result<(), ManagerError> {
        let free = self.slot_free();
        let record = self.record(id)?;
        if record.queued_over.is_some() {
            record.held.push(input);
            return Ok(());
        }
        if holds_slot(record) || record.commands.is_none() || free {
            let was_in_turn = record.in_turn;
            record.in_turn = record.commands.is_some();
            let sent = self.command(id, SessionCommand::Send(input));
            if sent.is_err()
                && let Some(record) = self.records.get_mut(id)
            {
                record.in_turn = was_in_turn;
            }
            return sent;
        }
        let covered = (
            record.status,
            record.detail.take(),
            record.detail_code.take(),
        );
        record.queued_over = Some(covered);
        record.status = Status::Queued;
        record.held.push(input);
        record.track_activity();
        self.turn_queue.push_back(id.to_owned());
        self.emit_info(id);
        Ok(())
    }

    /// Every status its task reports says whether the session's agent has a turn in
    /// progress. While the session is queued, the status is kept under `Queued`: `true` when
    /// it was (the record's status stays `Queued`).
    pub(super) fn status_under_queue(
        &mut self,
        id: &str,
        status: Status,
        detail: &Option<String>,
        code: &Option<codiva_protocol::log::NoteCode>,
    ) -> bool {
        let Some(record) = self.records.get_mut(id) else {
            return false;
        };
        record.in_turn = !status.is_settled();
        match record.queued_over.as_mut() {
            Some(covered) => {
                *covered = (status, detail.clone(), code.clone());
                true
            }
            None => false,
        }
    }

    /// Takes session `id` out of the queue (interrupted, discarded, merged, its task gone): its
    /// held messages are not sent — its task puts each into the log (`not_sent`) — and it shows
    /// its own status again. `true` when it was queued.
    pub(super) fn leave_queue(&mut self, id: &str) -> bool {
        let Some(record) = self.records.get_mut(id) else {
            return false;
        };
        let Some((status, detail, code)) = record.queued_over.take() else {
            return false;
        };
        let held = std::mem::take(&mut record.held);
        if !held.is_empty()
            && let Some(commands) = &record.commands
        {
            let _ = commands.send(SessionCommand::NotSent(held));
        }
        // A session whose first message never ran was stopped before it started.
        record.status = if status == Status::Starting {
            Status::Interrupted
        } else {
            status
        };
        record.detail = detail;
        record.detail_code = code;
        record.track_activity();
        self.turn_queue.retain(|queued| queued != id);
        self.emit_info(id);
        true
    }

    /// Starts queued sessions, oldest first, while slots are free.
    pub(super) fn start_queued(&mut self) {
        while self.slot_free() {
            let Some(id) = self.turn_queue.pop_front() else {
                return;
            };
            let Some(record) = self.records.get_mut(&id) else {
                continue;
            };
            let Some((status, detail, code)) = record.queued_over.take() else {
                continue;
            };
            record.status = status;
            record.detail = detail;
            record.detail_code = code;
            let held = std::mem::take(&mut record.held);
            record.in_turn = !held.is_empty();
            record.track_activity();
            for input in held {
                if let Err(err) = self.command(&id, SessionCommand::Send(input)) {
                    if let Some(record) = self.records.get_mut(&id) {
                        record.in_turn = false;
                    }
                    self.emit(ManagerEvent::Warning {
                        message: format!("session {id}: a queued message was not sent: {err}"),
                    });
                }
            }
            self.emit_info(&id);
        }
    }

    /// `session/interrupt`: a queued session leaves the queue; a running one is interrupted.
    pub(super) fn interrupt(&mut self, id: &str) -> Result<(), ManagerError> {
        if self.leave_queue(id) {
            return Ok(());
        }
        self.command(id, SessionCommand::Interrupt)
    }

    // -- resources ----------------------------------------------------------------------------

    /// Reads the agents' process groups (a job), when some session has a live agent process
    /// or had one at the last sample.
    pub(super) fn sample_resources(&mut self) {
        if self.sampler.running {
            return;
        }
        let sessions: Vec<(String, u32)> = self
            .records
            .iter()
            .map(|(id, record)| (id.clone(), record.agent_pid.load(Ordering::Relaxed)))
            .filter(|(id, pid)| *pid != 0 || self.records[id].resources.is_some())
            .collect();
        if sessions.is_empty() {
            self.sampler.last.clear();
            return;
        }
        self.sampler.running = true;
        let groups: Vec<u32> = sessions
            .iter()
            .map(|(_, pid)| *pid)
            .filter(|pid| *pid != 0)
            .collect();
        let ticks = self.sampler.ticks_per_second;
        let mut scan = std::mem::take(&mut self.sampler.scan);
        self.job(
            None,
            async move {
                tokio::task::spawn_blocking(move || {
                    let ticks = ticks.unwrap_or_else(procfs::clock_ticks);
                    let usage = scan.group_usage(&groups);
                    (usage, Instant::now(), ticks, scan)
                })
                .await
                .ok()
            },
            move |actor, sample| {
                actor.sampler.running = false;
                if let Some((usage, at, ticks, scan)) = sample {
                    actor.sampler.scan = scan;
                    actor.sampler.ticks_per_second = Some(ticks);
                    actor.apply_sample(sessions, &usage, at, ticks);
                }
            },
        );
    }

    fn apply_sample(
        &mut self,
        sessions: Vec<(String, u32)>,
        usage: &HashMap<u32, procfs::GroupUsage>,
        at: Instant,
        ticks: u64,
    ) {
        let mut last = HashMap::new();
        let mut changed = Vec::new();
        for (id, pid) in sessions {
            let resources = usage.get(&pid).map(|group| {
                let cpu_percent = match self.sampler.last.get(&pid) {
                    Some((before, when)) if at > *when => {
                        let used = group.cpu_ticks.saturating_sub(*before) as f64 / ticks as f64;
                        let percent = used / at.duration_since(*when).as_secs_f64() * 100.0;
                        (percent * 10.0).round() / 10.0
                    }
                    _ => 0.0,
                };
                last.insert(pid, (group.cpu_ticks, at));
                ResourceUsage {
                    rss_bytes: group.rss_bytes,
                    cpu_percent,
                    processes: group.processes,
                }
            });
            // The pid may have gone to 0 while the job ran (the agent stopped).
            let Some(record) = self.records.get_mut(&id) else {
                continue;
            };
            let resources = if record.agent_pid.load(Ordering::Relaxed) == pid {
                resources
            } else {
                None
            };
            if record.resources != resources {
                record.resources = resources;
                changed.push(SessionResources { id, resources });
            }
        }
        self.sampler.last = last;
        if !changed.is_empty() {
            self.emit(ManagerEvent::Resources { sessions: changed });
        }
    }
}
