//! The per-session wire log: every line in both directions, timestamped, size-capped.
//!
//! Format, one record per line: `2026-11-30T05:40:00.123Z << {json…}` (`<<` from the agent,
//! `>>` to the agent, `!!` for notes such as an oversized line). When the file passes its cap
//! it is renamed to `<name>.1` (replacing an older one) and a new file is started, so a log
//! never takes more than twice its cap on disk.
//!
//! Records are buffered: a writer calls [`WireLog::flush`] after each batch (the session's
//! reader flushes before it hands a batch of lines over, and every line to the agent is flushed
//! as it is written), and dropping the log flushes it. What a crash (an abort, a SIGKILL) can
//! lose is the batch being read at that moment, whose lines the session had not seen yet.

use std::fs::{File, OpenOptions};
use std::io::{self, BufWriter, Write};
use std::os::unix::fs::{DirBuilderExt as _, OpenOptionsExt as _, PermissionsExt as _};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Bytes buffered before a write reaches the file (a batch of lines is usually less).
const BUFFER: usize = 64 * 1024;

/// Default cap of one wire-log file.
pub const DEFAULT_CAP: u64 = 16 * 1024 * 1024;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direction {
    FromAgent,
    ToAgent,
    Note,
}

impl Direction {
    fn marker(self) -> &'static [u8] {
        match self {
            Direction::FromAgent => b" << ",
            Direction::ToAgent => b" >> ",
            Direction::Note => b" !! ",
        }
    }
}

#[derive(Debug)]
pub struct WireLog {
    path: PathBuf,
    file: Option<BufWriter<File>>,
    written: u64,
    /// The second the cached stamp prefix is for, and the prefix (`2026-11-30T05:40:00.`).
    stamp_second: u64,
    stamp_prefix: String,
    cap: u64,
    failed: bool,
    /// Why the log stopped, until [`WireLog::take_failure`] reports it.
    failure: Option<String>,
}

impl WireLog {
    /// Opens (appends to) the log at `path`, creating its directory. The log holds the
    /// agent's whole conversation: only its owner may read it (the file 0600, a directory it
    /// creates 0700).
    pub fn open(path: PathBuf, cap: u64) -> io::Result<WireLog> {
        if let Some(dir) = path.parent()
            && !dir.is_dir()
        {
            std::fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(dir)?;
        }
        let file = private_append(&path)?;
        let written = file.metadata().map(|m| m.len()).unwrap_or(0);
        Ok(WireLog {
            path,
            file: Some(BufWriter::with_capacity(BUFFER, file)),
            written,
            stamp_second: u64::MAX,
            stamp_prefix: String::new(),
            cap,
            failed: false,
            failure: None,
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Appends one record. A full disk or any other error disables the log (once, with a
    /// warning) instead of disturbing the session.
    pub fn write(&mut self, direction: Direction, line: &[u8]) {
        if self.failed {
            return;
        }
        let result = self.try_write(direction, line);
        self.check(result);
    }

    /// Writes what is buffered to the file.
    pub fn flush(&mut self) {
        if let Some(file) = self.file.as_mut() {
            let result = file.flush();
            self.check(result);
        }
    }

    fn check(&mut self, result: io::Result<()>) {
        if let Err(err) = result {
            tracing::warn!(path = %self.path.display(), %err, "wire log disabled");
            self.failed = true;
            self.file = None;
            self.failure = Some(format!(
                "the wire log {} cannot be written ({err}); it is off for this session",
                self.path.display()
            ));
        }
    }

    /// Why the log stopped, once (a warning for the user).
    pub fn take_failure(&mut self) -> Option<String> {
        self.failure.take()
    }

    fn try_write(&mut self, direction: Direction, line: &[u8]) -> io::Result<()> {
        if self.written >= self.cap {
            self.rotate()?;
        }
        let since = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .unwrap_or_default();
        if since.as_secs() != self.stamp_second {
            // The stamp up to its seconds changes once a second: formatted once a second.
            let mut stamp = timestamp(UNIX_EPOCH + Duration::from_secs(since.as_secs()));
            stamp.truncate(stamp.len() - "000Z".len());
            self.stamp_prefix = stamp;
            self.stamp_second = since.as_secs();
        }
        let Some(file) = self.file.as_mut() else {
            return Ok(());
        };
        // Very long lines are kept whole up to the cap's size; the cap is what bounds the disk.
        let body = &line[..line
            .len()
            .min(usize::try_from(self.cap).unwrap_or(usize::MAX))];
        let millis = since.subsec_millis();
        let digits = [
            b'0' + (millis / 100) as u8,
            b'0' + (millis / 10 % 10) as u8,
            b'0' + (millis % 10) as u8,
            b'Z',
        ];
        file.write_all(self.stamp_prefix.as_bytes())?;
        file.write_all(&digits)?;
        file.write_all(direction.marker())?;
        file.write_all(body)?;
        let mut len =
            self.stamp_prefix.len() + digits.len() + direction.marker().len() + body.len();
        if body.len() < line.len() {
            file.write_all(b" [cut]")?;
            len += b" [cut]".len();
        }
        file.write_all(b"\n")?;
        self.written += len as u64 + 1;
        Ok(())
    }

    fn rotate(&mut self) -> io::Result<()> {
        if let Some(mut file) = self.file.take() {
            file.flush()?;
        }
        let mut old = self.path.clone().into_os_string();
        old.push(".1");
        std::fs::rename(&self.path, PathBuf::from(old))?;
        self.file = Some(BufWriter::with_capacity(
            BUFFER,
            private_append(&self.path)?,
        ));
        self.written = 0;
        Ok(())
    }
}

/// Opens `path` for appending, created 0600; an existing file is narrowed to 0600 too (logs
/// written before this rule).
fn private_append(path: &Path) -> io::Result<File> {
    let file = OpenOptions::new()
        .create(true)
        .append(true)
        .mode(0o600)
        .open(path)?;
    if file.metadata()?.permissions().mode() & 0o077 != 0 {
        file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    }
    Ok(file)
}

/// RFC 3339 UTC timestamp with milliseconds.
pub fn timestamp(time: SystemTime) -> String {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    let secs = since.as_secs();
    let millis = since.subsec_millis();
    let days = i64::try_from(secs / 86_400).unwrap_or(0);
    let rem = secs % 86_400;
    let (year, month, day) = civil_from_days(days);
    format!(
        "{year:04}-{month:02}-{day:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        rem % 3600 / 60,
        rem % 60
    )
}

/// Days since 1970-01-01 → (year, month, day), proleptic Gregorian (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = u32::try_from(doy - (153 * mp + 2) / 5 + 1).unwrap_or(1);
    let month = u32::try_from(if mp < 10 { mp + 3 } else { mp - 9 }).unwrap_or(1);
    let year = yoe + era * 400 + i64::from(month <= 2);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn timestamps_are_rfc3339() {
        let t = UNIX_EPOCH + Duration::from_millis(1_796_000_400_123);
        assert_eq!(timestamp(t), "2026-11-30T01:00:00.123Z");
        assert_eq!(timestamp(UNIX_EPOCH), "1970-01-01T00:00:00.000Z");
    }

    #[test]
    fn rotates_at_the_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.wire.log");
        let mut log = WireLog::open(path.clone(), 100).unwrap();
        for _ in 0..10 {
            log.write(Direction::FromAgent, br#"{"type":"x"}"#);
        }
        log.flush();
        let rotated = dir.path().join("s.wire.log.1");
        assert!(rotated.exists());
        assert!(std::fs::metadata(&path).unwrap().len() <= 100 + 60);
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.lines().all(|l| l.contains(" << {\"type\":\"x\"}")));
    }

    #[test]
    fn only_the_owner_can_read_the_log_and_its_rotation() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("wire/s.wire.log");
        let mut log = WireLog::open(path.clone(), 100).unwrap();
        for _ in 0..5 {
            log.write(Direction::FromAgent, br#"{"type":"x"}"#);
        }
        log.flush();
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("wire/s.wire.log.1")), 0o600);
        assert_eq!(mode(&dir.path().join("wire")), 0o700);
        // A log left readable by an older codiva is narrowed when it is opened again.
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        drop(WireLog::open(path.clone(), 100).unwrap());
        assert_eq!(mode(&path), 0o600);
    }

    #[test]
    fn records_are_stamped_and_reach_the_file_on_flush() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("s.wire.log");
        let mut log = WireLog::open(path.clone(), DEFAULT_CAP).unwrap();
        log.write(Direction::ToAgent, b"{}");
        log.write(Direction::Note, b"skipped");
        log.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines.len(), 2);
        for (line, tail) in lines.iter().zip([" >> {}", " !! skipped"]) {
            let (stamp, rest) = line.split_at("2026-11-30T01:00:00.123Z".len());
            assert_eq!(rest, tail);
            assert!(
                stamp.ends_with('Z') && stamp.as_bytes()[19] == b'.',
                "{stamp}"
            );
            assert!(stamp[20..23].bytes().all(|b| b.is_ascii_digit()), "{stamp}");
        }
    }
}
