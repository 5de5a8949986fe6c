//! A loopback `sshd` for the remote tests: Debian's OpenSSH server started on 127.0.0.1 with a
//! temporary host key, one authorized client key, and the environment its sessions get fixed by
//! the test (`SetEnv`): remote commands see exactly the variables given, like the agent tests'
//! allowlist. It runs in its own process group and is killed with it when dropped.

use std::io::Read as _;
use std::net::{TcpListener, TcpStream};
use std::os::unix::process::CommandExt as _;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context as _, bail};
use tempfile::TempDir;

/// Where Debian's package puts the server.
const SSHD: &str = "/usr/sbin/sshd";

/// How long the server gets to listen.
const START_TIMEOUT: Duration = Duration::from_secs(20);

/// A running loopback `sshd`.
pub struct Sshd {
    dir: TempDir,
    port: u16,
    user: String,
    child: Child,
}

/// The OpenSSH server binary.
///
/// # Panics
/// If it is not installed: tests that need it must not skip silently.
pub fn sshd_binary() -> PathBuf {
    let path = PathBuf::from(SSHD);
    assert!(
        path.is_file(),
        "the OpenSSH server is not installed at {SSHD}: run `scripts/test` (it installs \
         Debian's `openssh-server` package)"
    );
    path
}

impl Sshd {
    /// Starts a server whose sessions get `env` (and nothing else of this process's
    /// environment but what sshd itself sets: USER, LOGNAME, SHELL, PATH, MAIL, …; a `HOME` in
    /// `env` overrides the account's).
    pub fn start(env: &[(String, String)]) -> anyhow::Result<Self> {
        let sshd = sshd_binary();
        let dir = tempfile::Builder::new().prefix("codiva-sshd").tempdir()?;
        for key in ["host_key", "client_key"] {
            let status = Command::new("ssh-keygen")
                .args(["-q", "-t", "ed25519", "-N", "", "-f"])
                .arg(dir.path().join(key))
                .stdin(Stdio::null())
                .status()
                .context("running ssh-keygen")?;
            if !status.success() {
                bail!("ssh-keygen failed: {status}");
            }
        }
        std::fs::copy(
            dir.path().join("client_key.pub"),
            dir.path().join("authorized_keys"),
        )?;
        // sshd's privilege separation needs this directory when it runs as root.
        // SAFETY: geteuid has no preconditions and cannot fail.
        if unsafe { libc::geteuid() } == 0 {
            let _ = std::fs::create_dir_all("/run/sshd");
        }
        let user = current_user()?;
        let mut last_error = String::new();
        for _ in 0..3 {
            let port = free_port()?;
            write_config(dir.path(), port, env)?;
            let mut child = Command::new(&sshd)
                .arg("-D")
                .arg("-f")
                .arg(dir.path().join("sshd_config"))
                .arg("-E")
                .arg(dir.path().join("sshd.log"))
                .stdin(Stdio::null())
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .process_group(0)
                .spawn()
                .context("starting sshd")?;
            match wait_listening(&mut child, port) {
                Ok(()) => {
                    return Ok(Sshd {
                        dir,
                        port,
                        user,
                        child,
                    });
                }
                Err(err) => {
                    // Another process may have taken the port meanwhile: try another.
                    stop(&mut child);
                    last_error = format!("{err:#}: {}", read_log(dir.path()));
                }
            }
        }
        bail!("sshd did not start: {last_error}")
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// `user@127.0.0.1`.
    pub fn destination(&self) -> String {
        format!("{}@127.0.0.1", self.user)
    }

    /// The client's private key.
    pub fn client_key(&self) -> PathBuf {
        self.dir.path().join("client_key")
    }

    /// An `ssh` command line (without the destination) that reaches this server with the
    /// client key, no configuration file, no known-hosts file and no prompts.
    pub fn ssh_argv(&self) -> Vec<String> {
        vec![
            "ssh".to_owned(),
            "-F".to_owned(),
            "/dev/null".to_owned(),
            "-i".to_owned(),
            self.client_key().display().to_string(),
            "-p".to_owned(),
            self.port.to_string(),
            "-o".to_owned(),
            "StrictHostKeyChecking=no".to_owned(),
            "-o".to_owned(),
            "UserKnownHostsFile=/dev/null".to_owned(),
            "-o".to_owned(),
            "IdentitiesOnly=yes".to_owned(),
            "-o".to_owned(),
            "BatchMode=yes".to_owned(),
            "-o".to_owned(),
            "LogLevel=ERROR".to_owned(),
        ]
    }

    /// Runs `command` on the server through `ssh`; its stdout, or an error with its stderr.
    pub fn run(&self, command: &str) -> anyhow::Result<String> {
        let argv = self.ssh_argv();
        let output = Command::new(&argv[0])
            .args(&argv[1..])
            .arg(self.destination())
            .arg(command)
            .stdin(Stdio::null())
            .output()
            .context("running ssh")?;
        if !output.status.success() {
            bail!(
                "ssh {command:?} failed ({}): {}",
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// The server's log so far.
    pub fn log(&self) -> String {
        read_log(self.dir.path())
    }
}

impl Drop for Sshd {
    fn drop(&mut self) {
        stop(&mut self.child);
    }
}

fn wait_listening(child: &mut Child, port: u16) -> anyhow::Result<()> {
    let deadline = Instant::now() + START_TIMEOUT;
    loop {
        if let Some(status) = child.try_wait()? {
            bail!("sshd exited: {status}");
        }
        if TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return Ok(());
        }
        if Instant::now() > deadline {
            bail!("sshd is not listening on port {port}");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Kills the server and every session it forked (they share its process group).
fn stop(child: &mut Child) {
    crate::kill_process_group(child.id());
    let _ = child.kill();
    let _ = child.wait();
}

fn read_log(dir: &Path) -> String {
    let mut text = String::new();
    if let Ok(mut file) = std::fs::File::open(dir.join("sshd.log")) {
        let _ = file.read_to_string(&mut text);
    }
    text
}

fn write_config(dir: &Path, port: u16, env: &[(String, String)]) -> anyhow::Result<()> {
    let mut config = format!(
        "Port {port}\n\
         ListenAddress 127.0.0.1\n\
         HostKey {dir}/host_key\n\
         AuthorizedKeysFile {dir}/authorized_keys\n\
         PidFile {dir}/sshd.pid\n\
         StrictModes no\n\
         UsePAM no\n\
         PasswordAuthentication no\n\
         KbdInteractiveAuthentication no\n\
         PermitRootLogin prohibit-password\n\
         X11Forwarding no\n\
         AllowTcpForwarding no\n\
         PrintMotd no\n\
         LogLevel VERBOSE\n",
        dir = dir.display()
    );
    // One `SetEnv` line: sshd takes the first of repeated directives.
    if !env.is_empty() {
        config.push_str("SetEnv");
        for (key, value) in env {
            if value.contains('"') || value.contains('\n') {
                bail!("the sshd test environment cannot carry {key}={value:?}");
            }
            config.push_str(&format!(" \"{key}={value}\""));
        }
        config.push('\n');
    }
    std::fs::write(dir.join("sshd_config"), config)?;
    Ok(())
}

fn free_port() -> anyhow::Result<u16> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    Ok(listener.local_addr()?.port())
}

fn current_user() -> anyhow::Result<String> {
    let output = Command::new("id")
        .arg("-un")
        .output()
        .context("running id -un")?;
    let name = String::from_utf8_lossy(&output.stdout).trim().to_owned();
    if name.is_empty() {
        bail!("cannot tell the current user's name");
    }
    Ok(name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_remote_command_sees_the_given_environment() {
        let home = tempfile::tempdir().unwrap();
        let server = Sshd::start(&[
            ("HOME".to_owned(), home.path().display().to_string()),
            ("CODIVA_PROBE".to_owned(), "remote value".to_owned()),
        ])
        .unwrap();
        let out = server.run("echo \"$HOME|$CODIVA_PROBE\"").unwrap();
        assert_eq!(
            out.trim(),
            format!("{}|remote value", home.path().display()),
            "sshd log: {}",
            server.log()
        );
    }
}
