//! A server's notification back into the manager event it was made from (the inverse of
//! `codiva serve`'s mapping; see `docs/serve-api.md`).

use codiva_protocol::ServerNotification;
use codiva_protocol::manager::{ManagerEvent, SequencedEvent};

/// The manager event a notification carries, with its `seq`. `None` for a warning without a
/// `seq` (start-up warnings, which `initialize` also returns, and "events were dropped", which
/// the next event's `seq` shows as a gap).
pub fn sequenced_event(notification: ServerNotification) -> Option<SequencedEvent> {
    use ServerNotification as N;
    let (seq, event) = match notification {
        N::SessionUpdated(p) => (p.seq, ManagerEvent::Session { session: p.session }),
        N::SessionRemoved(p) => (p.seq, ManagerEvent::Removed { id: p.session_id }),
        N::RepoBase(p) => (p.seq, ManagerEvent::Base { branch: p.base }),
        N::SessionPrStatus(p) => (
            p.seq,
            ManagerEvent::PrStatus {
                id: p.session_id,
                prs: p.prs,
            },
        ),
        N::AgentsLoginProgress(p) => (p.seq, ManagerEvent::Login { login: p.login }),
        N::SessionResources(p) => (
            p.seq,
            ManagerEvent::Resources {
                sessions: p.sessions,
            },
        ),
        N::GroupUpdated(p) => (
            p.seq,
            ManagerEvent::Group {
                change: p.change,
                group: p.group,
            },
        ),
        N::GroupRemoved(p) => (p.seq, ManagerEvent::GroupRemoved { id: p.group_id }),
        N::Warning(p) => (p.seq?, ManagerEvent::Warning { message: p.message }),
        N::SessionStatus(p)
        | N::SessionLog(p)
        | N::SessionStream(p)
        | N::SessionPermission(p)
        | N::SessionQuestion(p)
        | N::SessionPromptClosed(p)
        | N::SessionConnected(p)
        | N::SessionAgentSession(p)
        | N::SessionModel(p)
        | N::SessionPermissionMode(p)
        | N::SessionTodos(p)
        | N::SessionUsage(p)
        | N::SessionSubagent(p)
        | N::SessionAgentExited(p)
        | N::SessionAgentSwitched(p)
        | N::SessionPlanUsage(p)
        | N::SessionMcpServers(p) => (
            p.seq,
            ManagerEvent::Event {
                id: p.session_id,
                event: p.event,
            },
        ),
    };
    Some(SequencedEvent { seq, event })
}
