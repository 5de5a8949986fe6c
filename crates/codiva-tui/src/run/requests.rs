//! The loop's side of the app's requests: [`send`] hands one `ClientRequest` to the session
//! manager and returns its result as JSON, for [`App::answered`](crate::app::App::answered) to
//! decode; [`read_log`] reads a session's whole log, the one composite read.

use codiva_client::{Client, ClientError};
use codiva_protocol::ClientRequest;
use codiva_protocol::methods::request;
use codiva_protocol::params::{ReadParams, SessionParams};
use serde_json::Value;

use crate::app::Done;

/// Sends `request` and returns its result (the method table's result type, as JSON).
pub async fn send(manager: &Client, request: ClientRequest) -> Result<Value, ClientError> {
    manager.request(request).await
}

/// A session's whole log for its detail view, in one answer: every page of `session/read`,
/// then `session/snapshot` for its subagents and TODO list, then each subagent's first page.
///
/// One composite job rather than a request at a time because the pane loads the log whole (a
/// page at a time would draw a half-read log), and the snapshot read here is only for its
/// subagents and TODOs: as an answer of its own it would read as the attach's snapshot, which
/// rebuilds the pane. A failed page fails the read (the error notice); a failed snapshot or
/// subagent page leaves those out.
pub(super) async fn read_log(manager: &Client, id: String) -> Done {
    let read = |after, subagent| {
        manager.call::<request::SessionRead>(ReadParams {
            session_id: id.clone(),
            after,
            limit: Some(1000),
            subagent,
        })
    };
    let mut entries = Vec::new();
    let mut after = None;
    loop {
        match read(after, None).await {
            Ok(page) => {
                entries.extend(page.entries);
                match page.next_after {
                    Some(next) => after = Some(next),
                    None => break,
                }
            }
            Err(err) => {
                return Done::Error(crate::i18n::views::with_git_fix(
                    &crate::i18n::manager_error(&err),
                ));
            }
        }
    }
    // Each subagent's own log, for its card.
    let mut subagents = Vec::new();
    let mut todos = Vec::new();
    let params = SessionParams {
        session_id: id.clone(),
    };
    if let Ok(snapshot) = manager.call::<request::SessionSnapshot>(params).await {
        todos = snapshot.todo_items;
        for view in snapshot.subagents {
            let entries = match read(None, Some(view.tool_use_id.clone())).await {
                Ok(page) => page.entries,
                Err(_) => Vec::new(),
            };
            subagents.push((view, entries));
        }
    }
    Done::LogRead {
        id,
        entries,
        subagents,
        todos,
    }
}
