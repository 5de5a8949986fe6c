//! A controlled environment for running the real agent CLIs in tests.

use std::path::{Path, PathBuf};
use std::process::Command;

use anyhow::Context as _;
use tempfile::TempDir;

/// Flags for driving Claude Code over stream-json with permission prompts on stdio.
pub const CLAUDE_STREAM_JSON_ARGS: &[&str] = &[
    "-p",
    "--input-format",
    "stream-json",
    "--output-format",
    "stream-json",
    "--verbose",
    "--include-partial-messages",
    "--replay-user-messages",
    "--permission-prompt-tool",
    "stdio",
];

/// The workspace root (`crates/codiva-testkit/../..`).
pub fn workspace_root() -> PathBuf {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../..");
    root.canonicalize().unwrap_or(root)
}

/// The pinned Claude Code CLI: `$CODIVA_TEST_CLAUDE`, else
/// `<workspace>/tools/agent-clis/node_modules/.bin/claude`.
///
/// # Panics
/// If the binary does not exist: tests that need it must not skip silently.
pub fn claude_binary() -> PathBuf {
    let path = match std::env::var_os("CODIVA_TEST_CLAUDE") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => workspace_root().join("tools/agent-clis/node_modules/.bin/claude"),
    };
    if !path.exists() {
        panic!(
            "the Claude Code CLI is not installed at {}: run `scripts/test` (it installs the \
             pinned agent CLIs with `npm ci --prefix tools/agent-clis`), or point \
             CODIVA_TEST_CLAUDE at a claude binary",
            path.display()
        );
    }
    path
}

/// The GitHub CLI the GitHub tests run: `$CODIVA_TEST_GH`, else `gh` found on `PATH`.
///
/// # Panics
/// If there is none: tests that need it must not skip silently.
pub fn gh_binary() -> PathBuf {
    if let Some(p) = std::env::var_os("CODIVA_TEST_GH").filter(|p| !p.is_empty()) {
        let path = PathBuf::from(p);
        assert!(
            path.is_file(),
            "CODIVA_TEST_GH points at {}, which is not a file",
            path.display()
        );
        return path;
    }
    let found = std::env::var_os("PATH").and_then(|path| {
        std::env::split_paths(&path)
            .map(|dir| dir.join("gh"))
            .find(|candidate| candidate.is_file())
    });
    match found {
        Some(path) => path,
        None => panic!(
            "the GitHub CLI `gh` is not installed: run `scripts/test` (it installs Debian's \
             `gh` package), or point CODIVA_TEST_GH at a gh binary"
        ),
    }
}

/// The pinned Codex CLI: `$CODIVA_TEST_CODEX`, else
/// `<workspace>/tools/agent-clis/node_modules/.bin/codex`.
///
/// # Panics
/// If the binary does not exist: tests that need it must not skip silently.
pub fn codex_binary() -> PathBuf {
    let path = match std::env::var_os("CODIVA_TEST_CODEX") {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => workspace_root().join("tools/agent-clis/node_modules/.bin/codex"),
    };
    if !path.exists() {
        panic!(
            "the Codex CLI is not installed at {}: run `scripts/test` (it installs the pinned \
             agent CLIs), or point CODIVA_TEST_CODEX at a codex binary",
            path.display()
        );
    }
    path
}

/// A pinned ACP agent of `tools/agent-clis` (`.bin/<name>`), or `$<var>` when set.
///
/// # Panics
/// If the binary does not exist: tests that need it must not skip silently.
fn pinned_cli(name: &str, var: &str) -> PathBuf {
    let path = match std::env::var_os(var) {
        Some(p) if !p.is_empty() => PathBuf::from(p),
        _ => workspace_root()
            .join("tools/agent-clis/node_modules/.bin")
            .join(name),
    };
    if !path.exists() {
        panic!(
            "{name} is not installed at {}: run `scripts/install-agent-clis` (it installs the \
             pinned agent CLIs), or point {var} at one",
            path.display()
        );
    }
    path
}

/// The pinned codex-acp (`@zed-industries/codex-acp`): `$CODIVA_TEST_CODEX_ACP`, else
/// `tools/agent-clis/node_modules/.bin/codex-acp`.
pub fn codex_acp_binary() -> PathBuf {
    pinned_cli("codex-acp", "CODIVA_TEST_CODEX_ACP")
}

/// The pinned claude-code-acp (`@zed-industries/claude-code-acp`, a node script):
/// `$CODIVA_TEST_CLAUDE_CODE_ACP`, else `tools/agent-clis/node_modules/.bin/claude-code-acp`.
pub fn claude_code_acp_binary() -> PathBuf {
    pinned_cli("claude-code-acp", "CODIVA_TEST_CLAUDE_CODE_ACP")
}

/// The pinned Gemini CLI (`@google/gemini-cli`, a node script): `$CODIVA_TEST_GEMINI`, else
/// `tools/agent-clis/node_modules/.bin/gemini`.
pub fn gemini_binary() -> PathBuf {
    pinned_cli("gemini", "CODIVA_TEST_GEMINI")
}

/// The directory of the `bwrap` that `@openai/codex` bundles: codex-acp ships none and needs
/// one on `PATH` for sandboxed patches.
pub fn codex_bwrap_dir() -> Option<PathBuf> {
    let dir = workspace_root().join(
        "tools/agent-clis/node_modules/@openai/codex-linux-x64/vendor/x86_64-unknown-linux-musl/codex-resources",
    );
    dir.join("bwrap").is_file().then_some(dir)
}

/// The scripted ACP agent (`codiva-acp-agent`, a binary of this crate), built once per test
/// process with the cargo that runs the tests, so that it is never stale.
///
/// # Panics
/// If it cannot be built.
pub fn acp_agent_binary() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| build_testkit_bin("codiva-acp-agent"))
        .clone()
}

/// The tiny MCP stdio server (`codiva-mcp-stdio`, a binary of this crate), built like
/// [`acp_agent_binary`].
///
/// # Panics
/// If it cannot be built.
pub fn mcp_stdio_binary() -> PathBuf {
    static BUILT: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    BUILT
        .get_or_init(|| build_testkit_bin("codiva-mcp-stdio"))
        .clone()
}

/// Builds binary `name` of this crate with the cargo that runs the tests, into their target
/// directory.
fn build_testkit_bin(name: &str) -> PathBuf {
    let exe = std::env::current_exe().unwrap_or_else(|err| panic!("the test binary's path: {err}"));
    // target/<profile>/deps/<test binary>
    let Some(profile_dir) = exe.parent().and_then(Path::parent) else {
        panic!(
            "the test binary {} is not in target/<profile>/deps",
            exe.display()
        );
    };
    let status = testkit_build_command(name, profile_dir, std::env::vars_os().map(|(key, _)| key))
        .status()
        .unwrap_or_else(|err| panic!("running cargo build: {err}"));
    assert!(status.success(), "building {name} failed");
    let path = profile_dir.join(name);
    assert!(path.is_file(), "{} was not built", path.display());
    path
}

/// `cargo build` of binary `name` into the target directory of `profile_dir`, in the
/// environment the workspace's tests were built in: without the variables cargo sets for the
/// test it runs (`vars`: the test's own). A build script that watches one of them
/// (`rerun-if-env-changed`; ring's does `CARGO_MANIFEST_DIR`) would otherwise run again, and
/// everything above it be rebuilt (ring, rustls, this crate): by each test of another crate than
/// the last one's, and by the next `cargo build` of the workspace after it — tens of seconds of
/// both cores, the target directory locked, while other tests time their agents' start.
fn testkit_build_command(
    name: &str,
    profile_dir: &Path,
    vars: impl IntoIterator<Item = std::ffi::OsString>,
) -> Command {
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut command = Command::new(cargo);
    command.current_dir(workspace_root()).args([
        "build",
        "--quiet",
        "-p",
        "codiva-testkit",
        "--bin",
        name,
    ]);
    for var in vars {
        if var.to_str().is_some_and(set_by_cargo_for_a_test) {
            command.env_remove(var);
        }
    }
    if profile_dir
        .file_name()
        .is_some_and(|name| name == "release")
    {
        command.arg("--release");
    }
    if let Some(target) = profile_dir.parent() {
        command.env("CARGO_TARGET_DIR", target);
    }
    command
}

/// A variable cargo sets for the test (or binary) it runs, not one that configures cargo
/// (`CARGO_HOME`, `CARGO_TARGET_DIR`, `CARGO_BUILD_*`, … stay).
fn set_by_cargo_for_a_test(var: &str) -> bool {
    matches!(
        var,
        "CARGO_MANIFEST_DIR"
            | "CARGO_MANIFEST_PATH"
            | "CARGO_CRATE_NAME"
            | "CARGO_BIN_NAME"
            | "CARGO_PRIMARY_PACKAGE"
            | "CARGO_TARGET_TMPDIR"
            | "CARGO_RUSTC_CURRENT_DIR"
    ) || var.starts_with("CARGO_PKG_")
        || var.starts_with("CARGO_BIN_EXE_")
}

fn node_dir() -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join("node"))
        .find(|candidate| candidate.is_file())
        .and_then(|node| node.parent().map(Path::to_path_buf))
}

/// A fresh `HOME` and `TMPDIR` plus an allowlisted environment for an agent CLI.
pub struct AgentSandbox {
    pub home: TempDir,
    pub tmp: TempDir,
    max_retries: u32,
    extra: Vec<(String, String)>,
}

impl AgentSandbox {
    pub fn new() -> anyhow::Result<Self> {
        Ok(Self {
            home: tempfile::Builder::new()
                .prefix("codiva-home-")
                .tempdir()
                .context("creating the sandbox HOME")?,
            tmp: tempfile::Builder::new()
                .prefix("codiva-tmp-")
                .tempdir()
                .context("creating the sandbox TMPDIR")?,
            max_retries: 2,
            extra: Vec::new(),
        })
    }

    /// `CLAUDE_CODE_MAX_RETRIES` (default 2).
    pub fn with_max_retries(mut self, retries: u32) -> Self {
        self.max_retries = retries;
        self
    }

    /// An extra variable (e.g. `CLAUDE_CODE_ENABLE_TODO_TOOLS=1`); later ones win.
    pub fn with_env(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.extra.push((key.into(), value.into()));
        self
    }

    /// Codex's home in the sandbox (`$HOME/.codex`): its config, rollouts and state.
    pub fn codex_home(&self) -> PathBuf {
        self.home.path().join(".codex")
    }

    /// The complete environment for `codex` talking to the mock's Responses API at
    /// `mock_url`: `PATH`, `HOME`, `TMPDIR`, `LANG` and `CODEX_HOME`, whose `config.toml`
    /// (written here) makes a model provider of the mock (`wire_api = "responses"`, no OpenAI
    /// login) and picks `gpt-5.5`, a model of codex's bundled catalog with the classic tools.
    /// Use it with `Command::env_clear()`.
    pub fn codex_env(&self, mock_url: &str) -> anyhow::Result<Vec<(String, String)>> {
        let home = self.codex_home();
        std::fs::create_dir_all(&home).context("creating CODEX_HOME")?;
        let config = format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\n\
             name = \"mock\"\nbase_url = \"{mock_url}/v1\"\nwire_api = \"responses\"\n\
             requires_openai_auth = false\n"
        );
        std::fs::write(home.join("config.toml"), config).context("writing config.toml")?;
        let mut env: Vec<(String, String)> = self
            .claude_env(mock_url)
            .into_iter()
            .filter(|(key, _)| matches!(key.as_str(), "PATH" | "HOME" | "TMPDIR" | "LANG"))
            .collect();
        env.push(("CODEX_HOME".into(), home.to_string_lossy().into()));
        for (k, v) in &self.extra {
            env.retain(|(existing, _)| existing != k);
            env.push((k.clone(), v.clone()));
        }
        Ok(env)
    }

    /// The complete environment for codex-acp talking to the mock's Responses API: like
    /// [`AgentSandbox::codex_env`], with codex asking before anything it does not trust
    /// (`approval_policy = "untrusted"`), the plan tool on, and codex's bundled `bwrap` on
    /// `PATH`.
    pub fn codex_acp_env(&self, mock_url: &str) -> anyhow::Result<Vec<(String, String)>> {
        let mut env = self.codex_env(mock_url)?;
        let config = format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\napproval_policy = \"untrusted\"\n\
             sandbox_mode = \"workspace-write\"\n\n[model_providers.mock]\nname = \"mock\"\n\
             base_url = \"{mock_url}/v1\"\nwire_api = \"responses\"\nrequires_openai_auth = false\n\n\
             [tools.update_plan]\nenabled = true\n"
        );
        std::fs::write(self.codex_home().join("config.toml"), config)
            .context("writing config.toml")?;
        if let Some(dir) = codex_bwrap_dir()
            && let Some((_, path)) = env.iter_mut().find(|(key, _)| key == "PATH")
        {
            *path = format!("{}:{path}", dir.display());
        }
        Ok(env)
    }

    /// [`AgentSandbox::codex_acp_env`] with the `config.toml` of a user who never chose an
    /// approval policy or a sandbox: the mock as model provider and nothing else (codex-acp
    /// 0.16.0 then opens its sessions in `read-only` unless told otherwise).
    pub fn codex_acp_env_unconfigured(
        &self,
        mock_url: &str,
    ) -> anyhow::Result<Vec<(String, String)>> {
        let env = self.codex_acp_env(mock_url)?;
        let config = format!(
            "model = \"gpt-5.5\"\nmodel_provider = \"mock\"\n\n[model_providers.mock]\n\
             name = \"mock\"\nbase_url = \"{mock_url}/v1\"\nwire_api = \"responses\"\n\
             requires_openai_auth = false\n"
        );
        std::fs::write(self.codex_home().join("config.toml"), config)
            .context("writing config.toml")?;
        Ok(env)
    }

    /// The complete environment for the Gemini CLI talking to the mock's Gemini API at
    /// `mock_url`: `PATH`, `HOME`, `TMPDIR`, `LANG`, `GEMINI_API_KEY` (a mock key) and
    /// `GOOGLE_GEMINI_BASE_URL`; `$HOME/.gemini/settings.json` (written here) selects the API
    /// key login, pins `gemini-2.5-pro` (the default `auto` first asks a small model to route
    /// each prompt) and turns off usage statistics, telemetry and update checks (nothing leaves
    /// the machine).
    pub fn gemini_env(&self, mock_url: &str) -> anyhow::Result<Vec<(String, String)>> {
        let dir = self.home.path().join(".gemini");
        std::fs::create_dir_all(&dir).context("creating ~/.gemini")?;
        let settings = serde_json::json!({
            "security": {"auth": {"selectedType": "gemini-api-key"}},
            "model": {"name": "gemini-2.5-pro"},
            "privacy": {"usageStatisticsEnabled": false},
            "telemetry": {"enabled": false},
            "general": {"enableAutoUpdate": false, "enableAutoUpdateNotification": false},
        });
        std::fs::write(dir.join("settings.json"), settings.to_string())
            .context("writing ~/.gemini/settings.json")?;
        let mut env: Vec<(String, String)> = self
            .claude_env(mock_url)
            .into_iter()
            .filter(|(key, _)| matches!(key.as_str(), "PATH" | "HOME" | "TMPDIR" | "LANG"))
            .collect();
        env.push(("GEMINI_API_KEY".into(), "mock-gemini-key".into()));
        env.push(("GOOGLE_GEMINI_BASE_URL".into(), mock_url.into()));
        for (k, v) in &self.extra {
            env.retain(|(existing, _)| existing != k);
            env.push((k.clone(), v.clone()));
        }
        Ok(env)
    }

    /// The complete environment for `claude` talking to the mock at `mock_url`. Use it with
    /// `Command::env_clear()`: nothing from the developer's shell is passed on.
    pub fn claude_env(&self, mock_url: &str) -> Vec<(String, String)> {
        let mut path = String::from("/usr/local/bin:/usr/bin:/bin");
        if let Some(dir) = node_dir() {
            let dir = dir.to_string_lossy();
            if !path.split(':').any(|p| p == dir) {
                path = format!("{dir}:{path}");
            }
        }
        let mut env: Vec<(String, String)> = vec![
            ("PATH".into(), path),
            ("HOME".into(), self.home.path().to_string_lossy().into()),
            ("TMPDIR".into(), self.tmp.path().to_string_lossy().into()),
            ("LANG".into(), "C.UTF-8".into()),
            ("ANTHROPIC_BASE_URL".into(), mock_url.into()),
            ("ANTHROPIC_API_KEY".into(), "sk-mock".into()),
            (
                "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC".into(),
                "1".into(),
            ),
            (
                "CLAUDE_CODE_MAX_RETRIES".into(),
                self.max_retries.to_string(),
            ),
        ];
        for (k, v) in &self.extra {
            env.retain(|(existing, _)| existing != k);
            env.push((k.clone(), v.clone()));
        }
        env
    }
}

/// A temporary git repository on `main` with one committed `README.md`.
pub struct TestRepo {
    dir: TempDir,
}

impl TestRepo {
    pub fn new() -> anyhow::Result<Self> {
        let dir = tempfile::Builder::new()
            .prefix("codiva-repo-")
            .tempdir()
            .context("creating the test repo dir")?;
        std::fs::write(dir.path().join("README.md"), "# test repo\n")?;
        let repo = Self { dir };
        repo.git(&["init", "-q", "-b", "main"])?;
        repo.git(&["config", "user.name", "Codiva Test"])?;
        repo.git(&["config", "user.email", "test@codiva.invalid"])?;
        repo.git(&["config", "commit.gpgsign", "false"])?;
        repo.git(&["add", "README.md"])?;
        repo.git(&["commit", "-q", "-m", "initial"])?;
        Ok(repo)
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Runs `git <args>` in the repo, isolated from the user's and system git config.
    pub fn git(&self, args: &[&str]) -> anyhow::Result<String> {
        let out = Command::new("git")
            .args(args)
            .current_dir(self.path())
            .env("GIT_CONFIG_NOSYSTEM", "1")
            .env("GIT_CONFIG_GLOBAL", "/dev/null")
            .env_remove("GIT_DIR")
            .env_remove("GIT_WORK_TREE")
            .env_remove("GIT_INDEX_FILE")
            .output()
            .with_context(|| format!("running git {args:?}"))?;
        anyhow::ensure!(
            out.status.success(),
            "git {args:?} failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        Ok(String::from_utf8_lossy(&out.stdout).into_owned())
    }
}

/// Sends SIGKILL to the process group `pgid` (spawn the child with `process_group(0)`; its
/// pid is then the group id). Errors (e.g. the group is already gone) are ignored.
pub fn kill_process_group(pgid: u32) {
    let Ok(pgid) = libc::pid_t::try_from(pgid) else {
        return;
    };
    if pgid <= 1 {
        return;
    }
    // SAFETY: killpg only sends a signal; a stale or invalid group id yields an error code.
    unsafe {
        libc::killpg(pgid, libc::SIGKILL);
    }
}

/// Kills a process group when dropped (so no CLI survives a failing test).
pub struct ProcessGroupGuard {
    pgid: Option<u32>,
}

impl ProcessGroupGuard {
    pub fn new(pgid: Option<u32>) -> Self {
        Self { pgid }
    }

    /// Pids of the group's processes that are still running (zombies excluded), from `/proc`.
    pub fn live_members(&self) -> Vec<u32> {
        let Some(pgid) = self.pgid else {
            return Vec::new();
        };
        let Ok(dir) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        dir.filter_map(|entry| {
            let pid: u32 = entry.ok()?.file_name().to_str()?.parse().ok()?;
            let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
            // `pid (comm) state ppid pgrp ...`; comm may contain spaces and parentheses.
            let rest = &stat[stat.rfind(')')? + 1..];
            let mut fields = rest.split_whitespace();
            let state = fields.next()?;
            let pgrp: u32 = fields.nth(1)?.parse().ok()?;
            (pgrp == pgid && state != "Z" && state != "X").then_some(pid)
        })
        .collect()
    }
}

impl Drop for ProcessGroupGuard {
    fn drop(&mut self) {
        if let Some(pgid) = self.pgid.take() {
            kill_process_group(pgid);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What cargo set for this test does not reach the `cargo build` of a testkit binary (ring's
    /// build script watches `CARGO_MANIFEST_DIR`: each build from another crate's test rebuilt
    /// ring, rustls and this crate); what configures cargo does.
    #[test]
    fn a_testkit_binary_is_built_without_the_variables_cargo_set_for_the_test() {
        let vars = [
            "CARGO_MANIFEST_DIR",
            "CARGO_MANIFEST_PATH",
            "CARGO_PKG_NAME",
            "CARGO_PKG_VERSION_MAJOR",
            "CARGO_CRATE_NAME",
            "CARGO_PRIMARY_PACKAGE",
            "CARGO_TARGET_TMPDIR",
            "CARGO_BIN_EXE_codiva",
            "CARGO_HOME",
            "CARGO_BUILD_JOBS",
            "CARGO",
            "PATH",
            "RUSTFLAGS",
        ];
        let command = testkit_build_command(
            "codiva-acp-agent",
            Path::new("/work/target/debug"),
            vars.iter().map(std::ffi::OsString::from),
        );
        let removed: Vec<&std::ffi::OsStr> = command
            .get_envs()
            .filter(|(_, value)| value.is_none())
            .map(|(key, _)| key)
            .collect();
        assert_eq!(removed.len(), 8, "{removed:?}");
        for var in &vars[..8] {
            assert!(removed.contains(&std::ffi::OsStr::new(var)), "{var} stays");
        }
        assert_eq!(
            command
                .get_envs()
                .filter(|(_, value)| value.is_some())
                .collect::<Vec<_>>(),
            [(
                std::ffi::OsStr::new("CARGO_TARGET_DIR"),
                Some(std::ffi::OsStr::new("/work/target"))
            )]
        );
    }

    #[test]
    fn env_is_an_allowlist() {
        let sandbox = AgentSandbox::new()
            .unwrap()
            .with_max_retries(1)
            .with_env("CLAUDE_CODE_ENABLE_TODO_TOOLS", "1")
            .with_env("LANG", "ja_JP.UTF-8");
        let env = sandbox.claude_env("http://127.0.0.1:1");
        let get = |k: &str| {
            env.iter()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(get("CLAUDE_CODE_MAX_RETRIES"), Some("1"));
        assert_eq!(get("ANTHROPIC_BASE_URL"), Some("http://127.0.0.1:1"));
        assert_eq!(get("CLAUDE_CODE_ENABLE_TODO_TOOLS"), Some("1"));
        assert_eq!(get("LANG"), Some("ja_JP.UTF-8"));
        assert_eq!(env.iter().filter(|(k, _)| k == "LANG").count(), 1);
        assert!(get("PATH").unwrap().contains("/usr/bin"));
        assert!(get("CLAUDECODE").is_none());
        assert_eq!(env.len(), 9);
    }

    #[test]
    fn test_repo_has_one_commit_on_main() {
        let repo = TestRepo::new().unwrap();
        assert_eq!(
            repo.git(&["branch", "--show-current"]).unwrap().trim(),
            "main"
        );
        assert_eq!(
            repo.git(&["rev-list", "--count", "HEAD"]).unwrap().trim(),
            "1"
        );
        assert_eq!(repo.git(&["status", "--porcelain"]).unwrap(), "");
    }
}
