//! A mock of the GitHub API that the real `gh` talks to, over loopback HTTPS.
//!
//! A CA and a `localhost`/`127.0.0.1` certificate signed by it are made at start ([`rcgen`]);
//! the CA's PEM file is given to `gh` through `SSL_CERT_FILE`. `gh` treats `localhost:<port>` as
//! a GitHub Enterprise host (`GH_HOST`, `GH_ENTERPRISE_TOKEN`) and sends its GraphQL operations
//! to `https://localhost:<port>/api/graphql`. The operations it answers are the ones recorded
//! from the real `gh` (`fixtures/gh/requests-2.23.0.jsonl`); see [`repo`] for the answers, and
//! [`actions`] for the REST requests of `gh run view <id> --log-failed`.
//!
//! Each test scripts the repository ([`MockGitHub::add_pr`], [`MockGitHub::set_checks`], …) and
//! queues faults for the next requests ([`MockGitHub::fail_next`]: HTTP 500, a response that
//! never comes, a 403 rate limit). Every request is recorded, so a test can count them.
//!
//! Like [`crate::MockServer`] it runs on its own thread and runtime; dropping it stops the
//! listener and every connection.

pub mod actions;
pub mod repo;

use std::collections::VecDeque;
use std::net::{SocketAddr, TcpListener as StdTcpListener};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::JoinHandle;

use anyhow::Context as _;
use serde_json::{Value, json};
use tokio::io::{AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio_rustls::TlsAcceptor;

use crate::mock_server::{read_request, reason};
pub use actions::{MockJob, MockRun, MockStep};
use repo::MockRepo;
pub use repo::{MockCheck, MockMergeable, MockPr, MockPrState, MockReviewThread, operation_name};

/// The token the mock accepts (`GH_ENTERPRISE_TOKEN`).
pub const MOCK_GH_TOKEN: &str = "mock-gh-token";

/// What the next request gets instead of its answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Fault {
    /// HTTP 500 with GitHub's error body.
    ServerError,
    /// The request is read and never answered (the connection stays open): a network stall.
    Hang,
    /// HTTP 403 for an exhausted primary rate limit, with `x-ratelimit-remaining: 0` and
    /// `x-ratelimit-reset: <reset_epoch>`, as GitHub documents it.
    RateLimited { reset_epoch: u64 },
    /// HTTP 200 with a GraphQL error of type `RATE_LIMITED`, as GitHub answers a GraphQL query
    /// once the GraphQL budget is spent.
    GraphqlRateLimited,
}

/// One request as the mock saw it.
#[derive(Debug, Clone, PartialEq)]
pub struct GhRequest {
    pub method: String,
    pub path: String,
    /// Header names lower-cased.
    pub headers: Vec<(String, String)>,
    /// The body as JSON (`Null` when empty).
    pub body: Value,
    /// The GraphQL operation name, for a GraphQL request.
    pub operation: Option<String>,
    /// The fault that answered it, if any.
    pub fault: Option<Fault>,
}

impl GhRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The GraphQL variables.
    pub fn variables(&self) -> &Value {
        &self.body["variables"]
    }
}

struct State {
    repo: MockRepo,
    runs: Vec<MockRun>,
    faults: VecDeque<Fault>,
    requests: Vec<GhRequest>,
    unmatched: Vec<GhRequest>,
}

type Shared = Arc<Mutex<State>>;

fn lock(state: &Shared) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(|e| e.into_inner())
}

/// The running mock GitHub. See the module docs.
pub struct MockGitHub {
    addr: SocketAddr,
    state: Shared,
    dir: tempfile::TempDir,
    shutdown: Option<oneshot::Sender<()>>,
    thread: Option<JoinHandle<()>>,
}

/// The CA's PEM and a rustls acceptor for a `localhost` certificate signed by it.
fn make_tls() -> anyhow::Result<(String, TlsAcceptor)> {
    use rcgen::{
        BasicConstraints, CertificateParams, CertifiedIssuer, DnType, ExtendedKeyUsagePurpose,
        IsCa, KeyPair, KeyUsagePurpose,
    };
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca_params
        .distinguished_name
        .push(DnType::CommonName, "codiva mock GitHub CA");
    ca_params.key_usages = vec![KeyUsagePurpose::KeyCertSign, KeyUsagePurpose::CrlSign];
    let ca = CertifiedIssuer::self_signed(ca_params, KeyPair::generate()?)?;

    let leaf_key = KeyPair::generate()?;
    let mut leaf_params = CertificateParams::new(vec!["localhost".into(), "127.0.0.1".into()])?;
    leaf_params
        .distinguished_name
        .push(DnType::CommonName, "localhost");
    leaf_params.use_authority_key_identifier_extension = true;
    leaf_params.key_usages = vec![KeyUsagePurpose::DigitalSignature];
    leaf_params.extended_key_usages = vec![ExtendedKeyUsagePurpose::ServerAuth];
    let leaf = leaf_params.signed_by(&leaf_key, &ca)?;

    let provider = Arc::new(rustls::crypto::ring::default_provider());
    let key = rustls::pki_types::PrivateKeyDer::Pkcs8(leaf_key.serialize_der().into());
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(vec![leaf.der().clone(), ca.der().clone()], key)?;
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Ok((ca.pem(), TlsAcceptor::from(Arc::new(config))))
}

impl MockGitHub {
    /// Starts on a free loopback port, serving repository `owner/name` whose default branch is
    /// `default_branch`.
    pub fn start(owner: &str, name: &str, default_branch: &str) -> anyhow::Result<MockGitHub> {
        let dir = tempfile::Builder::new()
            .prefix("codiva-mock-gh-")
            .tempdir()
            .context("creating the mock GitHub's directory")?;
        let (ca_pem, acceptor) = make_tls().context("making the mock's certificate")?;
        std::fs::write(dir.path().join("ca.pem"), ca_pem)?;
        std::fs::create_dir(dir.path().join("gh-config"))?;
        std::fs::create_dir(dir.path().join("home"))?;
        std::fs::create_dir(dir.path().join("tmp"))?;

        let listener = StdTcpListener::bind(("127.0.0.1", 0)).context("binding 127.0.0.1:0")?;
        listener.set_nonblocking(true)?;
        let addr = listener.local_addr()?;
        let state = Arc::new(Mutex::new(State {
            repo: MockRepo {
                owner: owner.into(),
                name: name.into(),
                default_branch: default_branch.into(),
                prs: Vec::new(),
                threads: Vec::new(),
                base_url: format!("https://localhost:{}", addr.port()),
            },
            runs: Vec::new(),
            faults: VecDeque::new(),
            requests: Vec::new(),
            unmatched: Vec::new(),
        }));
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .context("building the mock GitHub runtime")?;
        let (tx, rx) = oneshot::channel();
        let thread_state = state.clone();
        let thread = std::thread::Builder::new()
            .name(format!("mock-github-{}", addr.port()))
            .spawn(move || {
                runtime.block_on(async move {
                    let listener = match TcpListener::from_std(listener) {
                        Ok(l) => l,
                        Err(e) => {
                            tracing::error!("mock GitHub: {e}");
                            return;
                        }
                    };
                    tokio::select! {
                        _ = rx => {}
                        () = accept_loop(listener, acceptor, thread_state) => {}
                    }
                });
                drop(runtime);
            })
            .context("spawning the mock GitHub thread")?;
        Ok(MockGitHub {
            addr,
            state,
            dir,
            shutdown: Some(tx),
            thread: Some(thread),
        })
    }

    /// `localhost:PORT`, the value of `GH_HOST`.
    pub fn host(&self) -> String {
        format!("localhost:{}", self.addr.port())
    }

    /// `localhost:PORT/owner/name`, the repository as `gh --repo` takes it.
    pub fn repo_arg(&self) -> String {
        let st = lock(&self.state);
        format!("{}/{}/{}", self.host(), st.repo.owner, st.repo.name)
    }

    /// The web URL of pull request `number`.
    pub fn pr_url(&self, number: u64) -> String {
        let st = lock(&self.state);
        format!(
            "https://{}/{}/{}/pull/{number}",
            self.host(),
            st.repo.owner,
            st.repo.name
        )
    }

    /// The CA certificate (PEM) to trust: `SSL_CERT_FILE`.
    pub fn cert_file(&self) -> PathBuf {
        self.dir.path().join("ca.pem")
    }

    /// The whole environment for a `gh` that talks to this mock and nothing else: an empty
    /// `GH_CONFIG_DIR`, `HOME` and `TMPDIR`, the mock's host, token and certificate, no prompts, no
    /// update check, no colour; `PATH` from this process (for `git`).
    pub fn gh_env(&self) -> Vec<(String, String)> {
        let dir = self.dir.path();
        let mut env = vec![
            ("GH_HOST".to_owned(), self.host()),
            ("GH_ENTERPRISE_TOKEN".to_owned(), MOCK_GH_TOKEN.to_owned()),
            path_var("SSL_CERT_FILE", &self.cert_file()),
            path_var("GH_CONFIG_DIR", &dir.join("gh-config")),
            path_var("HOME", &dir.join("home")),
            // gh caches run logs under the temporary directory, keyed by run id only.
            path_var("TMPDIR", &dir.join("tmp")),
        ];
        if let Some(path) = std::env::var_os("PATH") {
            env.push(("PATH".into(), path.to_string_lossy().into_owned()));
        }
        env
    }

    /// Adds a pull request (newest last) and returns its number.
    pub fn add_pr(&self, head: &str, base: &str, title: &str) -> u64 {
        let mut st = lock(&self.state);
        let number = st.repo.prs.iter().map(|p| p.number).max().unwrap_or(0) + 1;
        st.repo.prs.push(MockPr {
            number,
            title: title.into(),
            body: String::new(),
            base: base.into(),
            head: head.into(),
            state: MockPrState::Open,
            draft: false,
            mergeable: MockMergeable::Mergeable,
            checks: Vec::new(),
        });
        number
    }

    /// Changes pull request `number` (no-op if there is none).
    pub fn update_pr(&self, number: u64, change: impl FnOnce(&mut MockPr)) {
        let mut st = lock(&self.state);
        if let Some(pr) = st.repo.prs.iter_mut().find(|p| p.number == number) {
            change(pr);
        }
    }

    /// Replaces the check rollup of pull request `number`.
    pub fn set_checks(&self, number: u64, checks: Vec<MockCheck>) {
        self.update_pr(number, |pr| pr.checks = checks);
    }

    /// Every pull request, oldest first.
    pub fn prs(&self) -> Vec<MockPr> {
        lock(&self.state).repo.prs.clone()
    }

    /// Adds a review thread to pull request `number`; its index among that pull request's
    /// threads (for [`MockGitHub::resolve_thread`]).
    pub fn add_review_thread(&self, number: u64, thread: MockReviewThread) -> usize {
        let mut st = lock(&self.state);
        st.repo.threads.push((number, thread));
        st.repo.threads.iter().filter(|(n, _)| *n == number).count() - 1
    }

    /// Marks thread `index` of pull request `number` resolved (as a reviewer's "Resolve
    /// conversation").
    pub fn resolve_thread(&self, number: u64, index: usize) {
        let mut st = lock(&self.state);
        if let Some((_, thread)) = st
            .repo
            .threads
            .iter_mut()
            .filter(|(n, _)| *n == number)
            .nth(index)
        {
            thread.resolved = true;
        }
    }

    /// Adds a completed GitHub Actions run (for `gh run view <id> --log-failed`).
    pub fn add_run(&self, run: MockRun) {
        lock(&self.state).runs.push(run);
    }

    /// Queues `fault` for the next request that reaches the mock.
    pub fn fail_next(&self, fault: Fault) {
        lock(&self.state).faults.push_back(fault);
    }

    /// Every request so far, in arrival order.
    pub fn requests(&self) -> Vec<GhRequest> {
        lock(&self.state).requests.clone()
    }

    /// How many requests have arrived so far.
    pub fn request_count(&self) -> usize {
        lock(&self.state).requests.len()
    }

    /// Requests the mock did not know (unknown endpoint or GraphQL operation).
    pub fn unmatched(&self) -> Vec<GhRequest> {
        lock(&self.state).unmatched.clone()
    }
}

fn path_var(key: &str, path: &Path) -> (String, String) {
    (key.to_owned(), path.to_string_lossy().into_owned())
}

impl Drop for MockGitHub {
    fn drop(&mut self) {
        if let Some(tx) = self.shutdown.take() {
            let _ = tx.send(());
        }
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

async fn accept_loop(listener: TcpListener, acceptor: TlsAcceptor, state: Shared) {
    loop {
        match listener.accept().await {
            Ok((stream, _)) => {
                let state = state.clone();
                let acceptor = acceptor.clone();
                tokio::spawn(async move {
                    let _ = stream.set_nodelay(true);
                    match acceptor.accept(stream).await {
                        Ok(tls) => {
                            if let Err(e) = serve_connection(tls, state).await {
                                tracing::debug!("mock GitHub connection: {e:#}");
                            }
                        }
                        Err(e) => tracing::debug!("mock GitHub TLS handshake: {e}"),
                    }
                });
            }
            Err(e) => {
                tracing::warn!("mock GitHub accept: {e}");
                tokio::time::sleep(std::time::Duration::from_millis(10)).await;
            }
        }
    }
}

type Tls = tokio_rustls::server::TlsStream<tokio::net::TcpStream>;

async fn serve_connection(stream: Tls, state: Shared) -> anyhow::Result<()> {
    let mut stream = BufReader::new(stream);
    while let Some(request) = read_request(&mut stream).await? {
        let close = request
            .header("connection")
            .is_some_and(|v| v.eq_ignore_ascii_case("close"));
        let (status, headers, content_type, body) = match answer(request, &state) {
            Some(reply) => reply,
            // A stall: never answer; the connection stays open until the mock stops.
            None => std::future::pending().await,
        };
        write_response(stream.get_mut(), status, &headers, content_type, &body).await?;
        if close {
            break;
        }
    }
    let _ = stream.get_mut().shutdown().await;
    Ok(())
}

/// Status, extra headers, content type, body.
type Reply = (u16, Vec<(&'static str, String)>, &'static str, Vec<u8>);

const JSON: &str = "application/json; charset=utf-8";

fn json_reply(status: u16, headers: Vec<(&'static str, String)>, body: &Value) -> Reply {
    (status, headers, JSON, body.to_string().into_bytes())
}

fn github_error(message: &str) -> Value {
    json!({"message": message, "documentation_url": "https://docs.github.com/rest"})
}

/// The reply to one request; `None` for a stall.
fn answer(request: crate::mock_server::Request, state: &Shared) -> Option<Reply> {
    let body: Value = serde_json::from_slice(&request.body).unwrap_or(Value::Null);
    let operation = body
        .get("query")
        .and_then(Value::as_str)
        .and_then(operation_name);
    let mut recorded = GhRequest {
        method: request.method.clone(),
        path: request.path.clone(),
        headers: request.headers.clone(),
        body,
        operation,
        fault: None,
    };
    let mut st = lock(state);
    if let Some(fault) = st.faults.pop_front() {
        recorded.fault = Some(fault.clone());
        st.requests.push(recorded);
        return match fault {
            Fault::Hang => None,
            Fault::ServerError => Some(json_reply(500, Vec::new(), &github_error("Server Error"))),
            Fault::RateLimited { reset_epoch } => Some(json_reply(
                403,
                vec![
                    ("x-ratelimit-limit", "5000".into()),
                    ("x-ratelimit-remaining", "0".into()),
                    ("x-ratelimit-used", "5000".into()),
                    ("x-ratelimit-reset", reset_epoch.to_string()),
                    ("x-ratelimit-resource", "graphql".into()),
                ],
                &github_error("API rate limit exceeded for user ID 1."),
            )),
            Fault::GraphqlRateLimited => Some(json_reply(
                200,
                Vec::new(),
                &json!({"errors": [{"type": "RATE_LIMITED",
                    "message": "API rate limit already exceeded for user ID 1."}]}),
            )),
        };
    }
    let authorized = request
        .header("authorization")
        .is_some_and(|v| v == format!("token {MOCK_GH_TOKEN}"));
    if !authorized {
        st.requests.push(recorded);
        return Some(json_reply(
            401,
            Vec::new(),
            &github_error("Bad credentials"),
        ));
    }
    let reply = if request.method == "POST" && request.path == "/api/graphql" {
        let answer = match &recorded.operation {
            Some(op) => st.repo.answer(op, &recorded.body["variables"]),
            None => None,
        };
        answer.map(|data| json_reply(200, Vec::new(), &data))
    } else if request.method == "GET" {
        let route = request.path.split('?').next().unwrap_or_default();
        let web = format!("{}/{}/{}", st.repo.base_url, st.repo.owner, st.repo.name);
        let api = format!(
            "{}/api/v3/repos/{}/{}",
            st.repo.base_url, st.repo.owner, st.repo.name
        );
        let prefix = format!("/api/v3/repos/{}/{}/", st.repo.owner, st.repo.name);
        route
            .strip_prefix(&prefix)
            .and_then(|rest| actions::answer(&st.runs, rest, &api, &web))
            .map(|(content_type, body)| (200, Vec::new(), content_type, body))
    } else {
        None
    };
    st.requests.push(recorded.clone());
    Some(reply.unwrap_or_else(|| {
        st.unmatched.push(recorded);
        json_reply(404, Vec::new(), &github_error("Not Found"))
    }))
}

async fn write_response(
    w: &mut Tls,
    status: u16,
    headers: &[(&str, String)],
    content_type: &str,
    body: &[u8],
) -> anyhow::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\n\
         content-length: {}\r\nconnection: keep-alive\r\n",
        reason(status),
        body.len()
    );
    for (k, v) in headers {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    w.write_all(head.as_bytes()).await?;
    w.write_all(body).await?;
    w.flush().await?;
    Ok(())
}
