//! Locating an agent binary and probing its version.

use std::ffi::OsStr;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use codiva_core::process::{LocateError, ProbeError, Version, locate_program, probe_version};

fn write_script(path: &Path, body: &str) {
    std::fs::write(path, format!("#!/bin/sh\n{body}\n")).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

#[test]
fn configured_path_wins_and_must_be_executable() {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("claude");
    write_script(&agent, "true");
    let found = locate_program("claude", Some(&agent), Some(OsStr::new("")), None).unwrap();
    assert_eq!(found, agent);

    let plain = dir.path().join("plain");
    std::fs::write(&plain, "").unwrap();
    let err = locate_program("claude", Some(&plain), None, None).unwrap_err();
    assert!(
        matches!(&err, LocateError::Configured { path, .. } if path == &plain),
        "{err:?}"
    );
    assert!(
        err.to_string().contains(&plain.display().to_string()),
        "{err}"
    );

    let missing = dir.path().join("missing");
    let err = locate_program("claude", Some(&missing), None, None).unwrap_err();
    assert!(err.to_string().contains("does not exist"), "{err}");
}

#[test]
fn path_entries_then_install_dirs() {
    let dir = tempfile::tempdir().unwrap();
    let home = dir.path().join("home");
    let bin_a = dir.path().join("a");
    let bin_b = dir.path().join("b");
    for d in [&bin_a, &bin_b, &home.join(".claude/local")] {
        std::fs::create_dir_all(d).unwrap();
    }
    // Not executable in `a`: skipped.
    std::fs::write(bin_a.join("claude"), "").unwrap();
    write_script(&bin_b.join("claude"), "true");
    write_script(&home.join(".claude/local/claude"), "true");

    let path = std::env::join_paths([&bin_a, &bin_b]).unwrap();
    let found = locate_program("claude", None, Some(&path), Some(&home)).unwrap();
    assert_eq!(found, bin_b.join("claude"));

    let only_a = std::env::join_paths([&bin_a]).unwrap();
    let found = locate_program("claude", None, Some(&only_a), Some(&home)).unwrap();
    assert_eq!(found, home.join(".claude/local/claude"));
}

#[test]
fn not_found_names_every_searched_dir() {
    let dir = tempfile::tempdir().unwrap();
    let path = std::env::join_paths([dir.path()]).unwrap();
    let err =
        locate_program("codiva-no-such-agent", None, Some(&path), Some(dir.path())).unwrap_err();
    let LocateError::NotFound { name, searched } = &err else {
        panic!("{err:?}");
    };
    assert_eq!(name, "codiva-no-such-agent");
    assert_eq!(searched[0], dir.path());
    assert!(searched.contains(&dir.path().join(".local/bin")));
    assert!(searched.contains(&"/usr/local/bin".into()));
    assert!(err.to_string().contains(&dir.path().display().to_string()));
}

#[tokio::test]
async fn probe_parses_the_version() {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("claude");
    write_script(&agent, r#"echo "2.1.332 (Claude Code)""#);
    assert_eq!(
        probe_version(&agent).await.unwrap(),
        Version::new(2, 1, 332)
    );
}

#[tokio::test]
async fn probe_without_version_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let agent = dir.path().join("claude");
    write_script(&agent, "echo 'unknown option' >&2; exit 2");
    let err = probe_version(&agent).await.unwrap_err();
    assert!(matches!(err, ProbeError::NoVersion { .. }), "{err:?}");
    assert!(err.to_string().contains("unknown option"), "{err}");

    let err = probe_version(&dir.path().join("missing"))
        .await
        .unwrap_err();
    assert!(matches!(err, ProbeError::Spawn { .. }), "{err:?}");
}
