//! The process layer: line reading, spawning and killing, the child registry, locating agents.

// Test helpers outside `#[test]` functions panic on failure too.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod child_registry;
mod line_reader;
mod locate;
mod spawn;

use std::ffi::OsString;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use codiva_core::process::procfs::live_group_members;
use codiva_core::process::{EnvPolicy, ReadLine, SpawnSpec};

/// A spec running `sh -c script` with a minimal environment.
fn sh(script: &str) -> SpawnSpec {
    SpawnSpec {
        program: PathBuf::from("sh"),
        args: vec![OsString::from("-c"), OsString::from(script)],
        cwd: std::env::temp_dir(),
        env: EnvPolicy::Exact(vec![("PATH".into(), test_path())]),
        label: "test sh".into(),
    }
}

fn test_path() -> String {
    std::env::var("PATH").unwrap_or_else(|_| "/usr/local/bin:/usr/bin:/bin".into())
}

/// Polls until no live process remains in group `pgid`; false on timeout.
async fn group_gone_within(pgid: u32, limit: Duration) -> bool {
    let start = Instant::now();
    loop {
        if live_group_members(pgid).is_empty() {
            return true;
        }
        if start.elapsed() > limit {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

fn text(item: ReadLine) -> String {
    match item {
        ReadLine::Line(bytes) => String::from_utf8(bytes).unwrap(),
        ReadLine::Oversized { bytes } => panic!("unexpected oversized line of {bytes} bytes"),
    }
}
