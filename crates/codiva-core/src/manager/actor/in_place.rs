//! Sessions that run in place (a directory of the repository itself, with no worktree or
//! branch of their own: an editor's project, such as a Unity project, that must see the agent's
//! edits where they are), and what a session adds to its agent: MCP servers (in a private
//! config file), tool rules and its own system prompt text.
//!
//! An in-place directory is the repository's root or a directory inside it (the manager is
//! the repository's; its state, transcripts and lock are the repository's). One session at a
//! time runs in a directory: a second is refused (`in_place_busy`) until the first is
//! discarded. Merge, pull request, sync, restore and diff make no sense without a branch of its
//! own and are refused (`in_place_session`); discarding it only forgets the session (its files
//! are the user's own and are never touched).

use std::collections::{BTreeMap, BTreeSet};
use std::io::Write as _;
use std::path::{Path, PathBuf};

use codiva_protocol::error::RefusalCode;
use codiva_protocol::manager::{DiscardOutcome, ManagerEvent, SessionInfo, SessionPhase};
use codiva_protocol::mcp::McpServerConfig;

use super::lifecycle::wait_stopped;
use super::{Actor, refused, repo_key};
use crate::manager::{CreateOptions, ManagerError, Reply};
use crate::provider::{AgentExtras, InvalidInput, Provider};
use crate::session::SessionCommand;
use crate::session_state::SessionState;
use crate::slug;

/// What a session adds to its agent, as kept with the session (and in the state file).
#[derive(Debug, Clone, Default, PartialEq)]
pub(super) struct SessionExtras {
    /// The private MCP config file (mode 0600, in codiva's state directory).
    pub(super) mcp_config: Option<PathBuf>,
    /// The MCP config file is the caller's own (an ephemeral manager's): never removed.
    pub(super) callers_mcp_config: bool,
    pub(super) append_system_prompt: Option<String>,
    pub(super) allowed_tools: Vec<String>,
    pub(super) disallowed_tools: Vec<String>,
}

impl SessionExtras {
    /// codiva's own system prompt text, then the session's.
    pub(super) fn system_prompt(&self, codiva: Option<String>) -> Option<String> {
        let parts: Vec<String> = codiva
            .into_iter()
            .chain(self.append_system_prompt.clone())
            .collect();
        (!parts.is_empty()).then(|| parts.join("\n\n"))
    }

    /// What the provider gets; the servers are read back from the config file, for agents that
    /// take them in their handshake (ACP).
    pub(super) fn agent_extras(&self) -> AgentExtras {
        AgentExtras {
            mcp_config: self.mcp_config.clone(),
            mcp_servers: self
                .mcp_config
                .as_deref()
                .map(read_mcp_config)
                .unwrap_or_default(),
            allowed_tools: self.allowed_tools.clone(),
            disallowed_tools: self.disallowed_tools.clone(),
        }
    }

    /// Removes the MCP config file (with the session).
    pub(super) fn remove_mcp_config(&self) {
        if self.callers_mcp_config {
            return;
        }
        if let Some(path) = &self.mcp_config
            && let Err(err) = std::fs::remove_file(path)
            && err.kind() != std::io::ErrorKind::NotFound
        {
            tracing::warn!(path = %path.display(), %err, "cannot remove an MCP config file");
        }
    }
}

/// An MCP server's name as the agent's tool names carry it (`mcp__<name>__<tool>`).
fn valid_server_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// One line of printable text (a tool rule, a command).
fn one_line(text: &str) -> bool {
    !text.trim().is_empty() && !text.chars().any(char::is_control)
}

/// Writes `servers` as `{"mcpServers":{…}}` to `path`, readable by the user alone.
fn write_mcp_config(
    path: &Path,
    servers: &BTreeMap<String, McpServerConfig>,
) -> std::io::Result<()> {
    use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
    if let Some(dir) = path.parent() {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(dir)?;
    }
    let text = serde_json::to_vec(&serde_json::json!({ "mcpServers": servers }))
        .map_err(std::io::Error::other)?;
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create(true)
        .truncate(true)
        .mode(0o600)
        .open(path)?;
    // A file left by an earlier session of the same name keeps its old mode: set it.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(&text)?;
    file.sync_all()
}

/// The servers of a config file [`write_mcp_config`] wrote (none when it cannot be read: the
/// agent then starts without them, as it would without the file).
fn read_mcp_config(path: &Path) -> BTreeMap<String, McpServerConfig> {
    #[derive(serde::Deserialize)]
    struct File {
        #[serde(rename = "mcpServers")]
        mcp_servers: BTreeMap<String, McpServerConfig>,
    }
    std::fs::read(path)
        .ok()
        .and_then(|bytes| serde_json::from_slice::<File>(&bytes).ok())
        .map(|file| file.mcp_servers)
        .unwrap_or_default()
}

impl Actor {
    /// Refuses MCP servers and tool rules for an agent that takes none, and checks them.
    pub(super) fn check_extras(
        &self,
        provider: &dyn Provider,
        options: &CreateOptions,
    ) -> Result<(), ManagerError> {
        let asked = [
            ("mcp_servers", !options.mcp_servers.is_empty()),
            ("allowed_tools", !options.allowed_tools.is_empty()),
            ("disallowed_tools", !options.disallowed_tools.is_empty()),
        ];
        if let Some(option) = provider.capabilities().extra_not_taken(asked) {
            return Err(refused(
                RefusalCode::UnsupportedByAgent,
                &[provider.id(), option],
                format!("{} does not take {option}", provider.display_name()),
            ));
        }
        for (name, server) in &options.mcp_servers {
            let field = format!("mcp_servers.{name}");
            if !valid_server_name(name) {
                return Err(InvalidInput::new(
                    field,
                    "expected a name of letters, digits, '-' and '_' (at most 64)",
                )
                .into());
            }
            match server {
                McpServerConfig::Stdio { command, .. } if !one_line(command) => {
                    return Err(InvalidInput::new(field, "expected a command").into());
                }
                McpServerConfig::Http { url, .. }
                    if !(url.starts_with("http://") || url.starts_with("https://"))
                        || !one_line(url) =>
                {
                    return Err(InvalidInput::new(field, "expected an http(s) URL").into());
                }
                _ => {}
            }
        }
        for (field, rules) in [
            ("allowed_tools", &options.allowed_tools),
            ("disallowed_tools", &options.disallowed_tools),
        ] {
            if let Some(index) = rules.iter().position(|rule| !one_line(rule)) {
                return Err(InvalidInput::new(
                    format!("{field}[{index}]"),
                    "expected a tool rule on one line",
                )
                .into());
            }
        }
        Ok(())
    }

    /// The directory an in-place session runs in: `dir` resolved, inside the repository, and
    /// no other session's.
    pub(super) fn in_place_dir(&self, dir: &Path) -> Result<PathBuf, ManagerError> {
        if !dir.is_absolute() {
            return Err(InvalidInput::new("in_place", "expected an absolute path").into());
        }
        let resolved = std::fs::canonicalize(dir).map_err(|err| {
            InvalidInput::new("in_place", format!("cannot use {}: {err}", dir.display()))
        })?;
        if !resolved.is_dir() {
            return Err(InvalidInput::new(
                "in_place",
                format!("{} is not a directory", dir.display()),
            )
            .into());
        }
        let root = std::fs::canonicalize(self.repo.root())
            .unwrap_or_else(|_| self.repo.root().to_path_buf());
        if !resolved.starts_with(&root) {
            let (dir, root) = (resolved.display().to_string(), root.display().to_string());
            return Err(refused(
                RefusalCode::InPlaceNotInRepo,
                &[&dir, &root],
                format!("{dir} is not inside the repository {root}"),
            ));
        }
        self.in_place_free(&resolved)?;
        Ok(resolved)
    }

    /// Refused while another session runs in `dir`.
    fn in_place_free(&self, dir: &Path) -> Result<(), ManagerError> {
        let busy = self.records.values().find(|record| {
            record.in_place
                && record.worktree == dir
                && !matches!(
                    record.phase,
                    SessionPhase::Discarded | SessionPhase::Merged { .. }
                )
        });
        match busy {
            Some(record) => {
                let dir = dir.display().to_string();
                Err(refused(
                    RefusalCode::InPlaceBusy,
                    &[&dir, &record.id],
                    format!(
                        "session {} already runs in {dir}; discard it first",
                        record.id
                    ),
                ))
            }
            None => Ok(()),
        }
    }

    /// What session `id` adds to its agent; writes its MCP config file.
    pub(super) fn session_extras(
        &mut self,
        id: &str,
        options: &mut CreateOptions,
    ) -> Result<SessionExtras, ManagerError> {
        let given = self
            .ephemeral
            .as_ref()
            .and_then(|one| one.spec.mcp_config.clone());
        let callers_mcp_config = given.is_some();
        let mcp_config = if callers_mcp_config {
            // The caller's own file, taken by path as it is (`codiva exec --mcp-config`).
            given
        } else if options.mcp_servers.is_empty() {
            None
        } else {
            let path = self
                .options
                .state_dir
                .join("mcp")
                .join(format!("{}-{id}.json", repo_key(self.repo.root())));
            write_mcp_config(&path, &options.mcp_servers).map_err(|err| {
                ManagerError::McpConfig {
                    path: path.clone(),
                    source: std::sync::Arc::new(err),
                }
            })?;
            Some(path)
        };
        Ok(SessionExtras {
            mcp_config,
            callers_mcp_config,
            append_system_prompt: options
                .append_system_prompt
                .take()
                .filter(|text| !text.trim().is_empty()),
            allowed_tools: std::mem::take(&mut options.allowed_tools),
            disallowed_tools: std::mem::take(&mut options.disallowed_tools),
        })
    }

    /// The record of a new in-place session; its task starts at once (no worktree to make).
    pub(super) fn add_in_place(
        &mut self,
        mut options: CreateOptions,
        prompt: String,
        mut taken: BTreeSet<String>,
        dir: PathBuf,
    ) -> Result<SessionInfo, ManagerError> {
        // Checked again: another one may have been created while the slugs were read.
        self.in_place_free(&dir)?;
        taken.extend(self.records.values().map(|record| record.slug.clone()));
        // An ephemeral manager's one session is named by its caller and may resume.
        let (slug, resume) = match &self.ephemeral {
            Some(one) => (one.spec.id.clone(), one.spec.resume.clone()),
            None => (slug::slugify(&prompt, &taken), None),
        };
        let id = slug.clone();
        let extras = self.session_extras(&id, &mut options)?;
        let input = super::record::take_input(&mut options, &prompt);
        let mut record = self.new_record(
            slug,
            prompt.clone(),
            (String::new(), dir, SessionPhase::Active),
            &options,
            extras,
        );
        record.in_place = true;
        record.agent_session_id = resume;
        record.track_activity();
        let info = record.info();
        self.records.insert(id.clone(), record);
        self.start_task(&id, None, SessionState::new());
        // Through the agent slots (`budget.rs`): the first message may wait its turn.
        let _ = self.submit(&id, input);
        self.emit_info(&id);
        self.mark_dirty();
        self.request_title(&id, &prompt);
        Ok(info)
    }

    /// Refuses `what` (merge, pr, sync, restore, diff) for an in-place session; does it
    /// (`then` with the session's id and `reply`) for any other.
    pub(super) fn refuse_in_place<T>(
        &mut self,
        id: &str,
        what: &str,
        reply: Reply<T>,
        then: impl FnOnce(&mut Actor, &str, Reply<T>),
    ) {
        if !self.records.get(id).is_some_and(|record| record.in_place) {
            return then(self, id, reply);
        }
        reply.send(Err(refused(
            RefusalCode::InPlaceSession,
            &[id, what],
            format!("session {id} runs in place, with no branch of its own: no {what}"),
        )));
    }

    /// Discards (or removes, `forget`) session `id`. Discarding or removing an in-place
    /// session forgets it: its agent is stopped, its MCP config file removed, its files left
    /// as they are.
    pub(super) fn discard_or_forget(
        &mut self,
        id: &str,
        confirm: Option<String>,
        forget: bool,
        reply: Reply<DiscardOutcome>,
    ) {
        if !self.records.get(id).is_some_and(|record| record.in_place) {
            return self.discard(id, confirm, forget, reply);
        }
        let forwarder = self.take_task(id);
        let owned_id = id.to_owned();
        self.job(Some(id), wait_stopped(forwarder), move |actor, ()| {
            if let Some(record) = actor.records.remove(&owned_id) {
                record.extras.remove_mcp_config();
            }
            actor.emit(ManagerEvent::Removed {
                id: owned_id.clone(),
            });
            actor.left_groups(&owned_id);
            actor.mark_dirty();
            reply.send(Ok(DiscardOutcome::Removed { id: owned_id }));
        });
    }

    /// Asks the agent of session `id` to connect MCP server `server` again.
    pub(super) fn mcp_reconnect(&mut self, id: &str, server: &str) -> Result<(), ManagerError> {
        let agent = self.record(id)?.agent.clone();
        let provider = self.provider_for(&agent)?;
        if !provider.capabilities().mcp_reconnect {
            return Err(refused(
                RefusalCode::UnsupportedByAgent,
                &[provider.id(), "mcp_reconnect"],
                format!("{} does not reconnect MCP servers", provider.display_name()),
            ));
        }
        let record = self.record(id)?;
        if !record.mcp_servers.iter().any(|state| state.name == server) {
            let known: Vec<&str> = record
                .mcp_servers
                .iter()
                .map(|state| state.name.as_str())
                .collect();
            let known = known.join(", ");
            return Err(refused(
                RefusalCode::NoSuchMcpServer,
                &[id, server, &known],
                format!("session {id} has no MCP server {server:?} (it has: {known})"),
            ));
        }
        self.command(id, SessionCommand::McpReconnect(server.to_owned()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mcp_config_is_private_and_in_the_agents_format() {
        use std::os::unix::fs::PermissionsExt as _;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mcp").join("s.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "old").unwrap();
        let servers = BTreeMap::from([(
            "ops".to_owned(),
            McpServerConfig::Http {
                url: "http://127.0.0.1:1/mcp".into(),
                headers: BTreeMap::from([("Authorization".into(), "Bearer t".into())]),
            },
        )]);
        write_mcp_config(&path, &servers).unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let written: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).unwrap()).unwrap();
        assert_eq!(
            written,
            serde_json::json!({"mcpServers": {"ops": {"type": "http",
                "url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer t"}}}})
        );
    }

    #[test]
    fn names_and_rules_are_checked() {
        assert!(valid_server_name("unity-ops_2"));
        assert!(!valid_server_name("has space"));
        assert!(!valid_server_name(""));
        assert!(one_line("Bash(git *)"));
        assert!(!one_line("a\nb"));
        let extras = SessionExtras {
            append_system_prompt: Some("mine".into()),
            ..SessionExtras::default()
        };
        assert_eq!(
            extras.system_prompt(Some("codiva's".into())).as_deref(),
            Some("codiva's\n\nmine")
        );
        assert_eq!(SessionExtras::default().system_prompt(None), None);
    }
}
