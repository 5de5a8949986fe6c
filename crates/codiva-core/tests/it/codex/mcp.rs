//! A session's MCP servers in the real codex 0.171.0 (`codex app-server`): given to the thread
//! as its config (stdio servers: `codiva-mcp-stdio`, one that fails until a file exists; an
//! HTTP server with a bearer token), their start-up reported as statuses, and
//! a reconnect that brings the failed one up. (The model's call of a server's tool is not run
//! here: codex 0.171 offers MCP tools only through `tool_search` and takes their calls only
//! with a `namespace`, which the mock's Responses replies do not carry; docs/protocol/codex.md.)

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use codiva_core::manager::{CreateOptions, ManagerError};
use codiva_protocol::mcp::{McpServerConfig, McpServerState, McpStatus};
use codiva_protocol::session::{SessionEvent, Status};
use codiva_testkit::{Reply, Script, mcp_stdio_binary};

use super::harness::Run;

const TOKEN: &str = "Bearer codiva-test-token-7f3a";

/// A loopback HTTP server that answers every request 401 (it wants a login) and keeps the
/// `Authorization` header of each.
fn refusing_http_server() -> (String, Arc<Mutex<Vec<String>>>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/mcp", listener.local_addr().unwrap());
    let seen = Arc::new(Mutex::new(Vec::new()));
    let kept = seen.clone();
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            let mut line = String::new();
            let mut length = 0usize;
            while reader.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
                let lower = line.to_ascii_lowercase();
                if lower.starts_with("authorization:") {
                    kept.lock()
                        .unwrap()
                        .push(line["authorization:".len()..].trim().to_owned());
                }
                if let Some(value) = lower.strip_prefix("content-length:") {
                    length = value.trim().parse().unwrap_or(0);
                }
                line.clear();
            }
            let mut body = vec![0; length];
            let _ = std::io::Read::read_exact(&mut reader, &mut body);
            let _ = stream.write_all(
                b"HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Bearer realm=\"test\"\r\n\
                  Content-Length: 0\r\nConnection: close\r\n\r\n",
            );
        }
    });
    (url, seen)
}

fn statuses(servers: &[McpServerState]) -> Vec<(&str, McpStatus)> {
    servers
        .iter()
        .map(|server| (server.name.as_str(), server.status))
        .collect()
}

/// The last MCP statuses the session reported, waiting for ones that satisfy `pred` (they
/// may have come while the test waited for something else).
async fn servers_until(
    run: &mut Run,
    what: &str,
    pred: impl Fn(&[McpServerState]) -> bool,
) -> Vec<McpServerState> {
    let last = run.events.iter().rev().find_map(|event| match event {
        SessionEvent::McpServers { servers } => Some(servers.clone()),
        _ => None,
    });
    if let Some(servers) = last.filter(|servers| pred(servers)) {
        return servers;
    }
    match run
        .until(
            what,
            |event| matches!(event, SessionEvent::McpServers { servers } if pred(servers)),
        )
        .await
    {
        SessionEvent::McpServers { servers } => servers,
        _ => unreachable!(),
    }
}

/// Every file under `dir` (codex's home: config, rollouts, sqlite state and logs).
fn files_under(dir: &Path) -> Vec<PathBuf> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                todo.push(path);
            } else {
                out.push(path);
            }
        }
    }
    out
}

#[tokio::test]
async fn mcp_servers_start_report_their_status_and_reconnect() {
    let required = tempfile::tempdir().unwrap();
    let required = required.path().join("ready");
    let (url, authorizations) = refusing_http_server();
    let server = mcp_stdio_binary().display().to_string();
    let script = Script::new().then(Reply::text("Servers noted."));
    let options = CreateOptions {
        prompt: "note the servers".into(),
        mcp_servers: [
            (
                "tool".to_owned(),
                McpServerConfig::Stdio {
                    command: server.clone(),
                    args: Vec::new(),
                    env: Default::default(),
                },
            ),
            (
                "bad".to_owned(),
                McpServerConfig::Stdio {
                    command: server,
                    args: vec!["--require".into(), required.display().to_string()],
                    env: Default::default(),
                },
            ),
            (
                "web".to_owned(),
                McpServerConfig::Http {
                    url,
                    headers: [("Authorization".to_owned(), TOKEN.to_owned())].into(),
                },
            ),
        ]
        .into(),
        ..CreateOptions::default()
    };
    let mut run = Run::start_options("codex-mcp", script, options).await;
    assert_eq!(
        run.until_settled().await,
        Status::Completed,
        "{}",
        run.dump()
    );
    // Given to the thread: all pending first, then each one's start-up as codex reports it.
    let first = run.events.iter().find_map(|event| match event {
        SessionEvent::McpServers { servers } => Some(statuses(servers)),
        _ => None,
    });
    use McpStatus::{Connected, Failed, Pending};
    assert_eq!(
        first.unwrap(),
        [("bad", Pending), ("tool", Pending), ("web", Pending)]
    );
    let settled = servers_until(&mut run, "every server started or failed", |servers| {
        servers.iter().all(|server| server.status != Pending)
    })
    .await;
    assert_eq!(
        statuses(&settled),
        [("bad", Failed), ("tool", Connected), ("web", Failed)]
    );
    // The HTTP server got the bearer token and answered 401: codex reports the server failed, not logged in.
    assert!(
        authorizations
            .lock()
            .unwrap()
            .iter()
            .any(|seen| seen == TOKEN),
        "the token reached the HTTP server: {:?}",
        authorizations.lock().unwrap()
    );
    let web = settled.iter().find(|server| server.name == "web").unwrap();
    assert!(
        web.error
            .as_deref()
            .is_some_and(|e| e.contains("not logged in")),
        "{web:?}"
    );
    assert!(
        settled[0]
            .error
            .as_deref()
            .is_some_and(|e| e.contains("bad")),
        "{:?}",
        settled[0]
    );
    // The session's info keeps them.
    let sessions = run.manager.list().await.unwrap();
    let info = sessions.iter().find(|info| info.id == run.id).unwrap();
    assert_eq!(statuses(&info.mcp_servers), statuses(&settled));

    // The file `bad` needs now exists: a reconnect restarts the thread's servers and it
    // comes up.
    std::fs::write(&required, "").unwrap();
    run.manager.mcp_reconnect(&run.id, "bad").await.unwrap();
    let after = servers_until(&mut run, "bad connected after the reconnect", |servers| {
        servers
            .iter()
            .any(|server| server.name == "bad" && server.status == Connected)
            && servers.iter().all(|server| server.status != Pending)
    })
    .await;
    assert_eq!(
        statuses(&after),
        [("bad", Connected), ("tool", Connected), ("web", Failed)]
    );
    let refused = run.manager.mcp_reconnect(&run.id, "nosuch").await;
    assert!(
        matches!(&refused, Err(ManagerError::Refused(r)) if r.code == "no_such_mcp_server"),
        "{refused:?}"
    );

    // The token is in no file of codex's home (config, rollout, state, logs, shell
    // snapshot), and the wire log keeps the line that carried it redacted.
    let wire = std::fs::read_to_string(run.wire_log_path()).unwrap();
    assert!(
        wire.contains(r#""http_headers":{"Authorization":"<redacted>"}"#),
        "the header is redacted in the wire log"
    );
    assert!(!wire.contains(TOKEN), "the token is not in the wire log");
    for path in files_under(&run.sandbox.codex_home()) {
        let bytes = std::fs::read(&path).unwrap_or_default();
        assert!(
            !bytes.windows(TOKEN.len()).any(|w| w == TOKEN.as_bytes()),
            "the token is in {}",
            path.display()
        );
    }
    run.finish().await;
}
