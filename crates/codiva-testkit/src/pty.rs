//! Runs a program in a pseudo-terminal and reads its screen (through a VT100 parser), so a
//! terminal UI can be tested the way a person uses it: type keys, look at the screen.

use std::fs::File;
use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::os::unix::process::CommandExt;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::{Context, bail};

/// A program running in a pseudo-terminal.
pub struct Pty {
    master: File,
    child: Child,
    screen: Arc<Mutex<vt100::Parser>>,
    raw: Arc<Mutex<Vec<u8>>>,
}

impl Pty {
    /// Starts `command` with the pty's slave as its stdin, stdout, stderr and controlling
    /// terminal, `rows` × `cols` cells.
    pub fn spawn(mut command: Command, rows: u16, cols: u16) -> anyhow::Result<Pty> {
        let mut master_fd: libc::c_int = -1;
        let mut slave_fd: libc::c_int = -1;
        let size = libc::winsize {
            ws_row: rows,
            ws_col: cols,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: openpty writes two fds into the given pointers; the other arguments may be
        // null or point to valid values (the winsize lives for the call).
        let result = unsafe {
            libc::openpty(
                &mut master_fd,
                &mut slave_fd,
                std::ptr::null_mut(),
                std::ptr::null(),
                &size,
            )
        };
        if result != 0 {
            bail!("openpty failed: {}", std::io::Error::last_os_error());
        }
        // openpty leaves both fds inheritable: a child that kept the master would hold its own
        // terminal open (nothing would read it once this side is gone, and its next frame
        // would block in write forever).
        for fd in [master_fd, slave_fd] {
            // SAFETY: fcntl on an fd openpty just opened.
            unsafe {
                libc::fcntl(fd, libc::F_SETFD, libc::FD_CLOEXEC);
            }
        }
        // SAFETY: openpty succeeded, so both fds are open and owned by nobody else.
        let (master, slave) = unsafe {
            (
                OwnedFd::from_raw_fd(master_fd),
                OwnedFd::from_raw_fd(slave_fd),
            )
        };
        command
            .stdin(Stdio::from(slave.try_clone()?))
            .stdout(Stdio::from(slave.try_clone()?))
            .stderr(Stdio::from(slave));
        // SAFETY: only async-signal-safe calls (setsid, ioctl) between fork and exec.
        unsafe {
            command.pre_exec(|| {
                if libc::setsid() < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                if libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let child = command.spawn().context("spawn in pty")?;
        let master = File::from(master);
        let screen = Arc::new(Mutex::new(vt100::Parser::new(rows, cols, 0)));
        let raw = Arc::new(Mutex::new(Vec::new()));
        let mut reader = master.try_clone()?;
        let mut answerer = master.try_clone()?;
        let screen_writer = screen.clone();
        let raw_writer = raw.clone();
        std::thread::spawn(move || {
            let mut buf = [0u8; 65536];
            loop {
                let n = match reader.read(&mut buf) {
                    Ok(0) | Err(_) => break,
                    Ok(n) => n,
                };
                let chunk = &buf[..n];
                // Answer the queries a real terminal answers, so programs don't wait for a
                // timeout: primary device attributes and the cursor position.
                if find(chunk, b"\x1b[c").is_some() {
                    let _ = answerer.write_all(b"\x1b[?62;22c");
                }
                if find(chunk, b"\x1b[6n").is_some() {
                    let (row, col) = screen_writer
                        .lock()
                        .map(|p| p.screen().cursor_position())
                        .unwrap_or((0, 0));
                    let _ = answerer.write_all(format!("\x1b[{};{}R", row + 1, col + 1).as_bytes());
                }
                if let Ok(mut parser) = screen_writer.lock() {
                    parser.process(chunk);
                }
                if let Ok(mut raw) = raw_writer.lock() {
                    raw.extend_from_slice(chunk);
                }
            }
        });
        Ok(Pty {
            master,
            child,
            screen,
            raw,
        })
    }

    /// Types `bytes` (keys are their terminal encodings: `\r` Enter, `\x03` Ctrl+C, `\x1b[Z`
    /// Shift+Tab, …).
    pub fn send(&mut self, bytes: &[u8]) {
        let _ = self.master.write_all(bytes);
        let _ = self.master.flush();
    }

    /// Types text then Enter, as a bracketed-less burst of keys.
    pub fn type_line(&mut self, text: &str) {
        self.send(text.as_bytes());
        std::thread::sleep(Duration::from_millis(50));
        self.send(b"\r");
    }

    /// The screen as text, one line per row (trailing spaces trimmed).
    pub fn screen(&self) -> String {
        self.screen
            .lock()
            .map(|p| {
                p.screen()
                    .rows(0, p.screen().size().1)
                    .map(|row| row.trim_end().to_owned())
                    .collect::<Vec<_>>()
                    .join("\n")
            })
            .unwrap_or_default()
    }

    /// Everything the program wrote so far.
    pub fn output(&self) -> Vec<u8> {
        self.raw.lock().map(|r| r.clone()).unwrap_or_default()
    }

    /// Waits until the screen satisfies `pred`; panics with the screen on timeout.
    pub fn wait_for(&self, what: &str, timeout: Duration, pred: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + timeout;
        loop {
            let screen = self.screen();
            if pred(&screen) {
                return screen;
            }
            if Instant::now() > deadline {
                panic!("timed out waiting for {what}; the screen:\n{screen}");
            }
            std::thread::sleep(Duration::from_millis(30));
        }
    }

    /// Waits until `text` is on the screen.
    pub fn wait_for_text(&self, text: &str, timeout: Duration) -> String {
        self.wait_for(&format!("{text:?} on the screen"), timeout, |s| {
            s.contains(text)
        })
    }

    pub fn try_wait(&mut self) -> Option<std::process::ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// Waits for the program to exit.
    pub fn wait_exit(&mut self, timeout: Duration) -> Option<std::process::ExitStatus> {
        let deadline = Instant::now() + timeout;
        while Instant::now() < deadline {
            if let Some(status) = self.try_wait() {
                return Some(status);
            }
            std::thread::sleep(Duration::from_millis(30));
        }
        None
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Kills the program (SIGKILL) and reaps it.
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Pty {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_program_holds_only_its_terminal_not_the_master() {
        let mut command = Command::new("sh");
        command.args(["-c", "ls -l /proc/self/fd/; echo listed"]);
        let mut pty = Pty::spawn(command, 24, 200).expect("spawn");
        let screen = pty.wait_for_text("listed", Duration::from_secs(10));
        pty.wait_exit(Duration::from_secs(10));
        assert!(!screen.contains("ptmx"), "{screen}");
        // Its three standard fds are the terminal, and no other fd is.
        let terminals = screen.lines().filter(|l| l.contains("/dev/pts/")).count();
        assert_eq!(terminals, 3, "{screen}");
    }
}
