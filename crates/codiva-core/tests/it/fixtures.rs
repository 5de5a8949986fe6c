//! Fixtures: sanitised captures of real CLI runs (`CODIVA_CAPTURE_FIXTURES=1` while running the
//! end-to-end tests writes them), and the fast replay tests built on them.

use std::path::{Path, PathBuf};

pub fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/claude")
}

/// Codex app-server captures: both directions, `>> ` (codiva to codex) and `<< ` prefixed.
pub fn codex_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex")
}

/// ACP captures (codex-acp and claude-code-acp): both directions, `>> ` and `<< ` prefixed.
pub fn acp_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/acp")
}

/// `codex exec --json` captures (codex's stdout only: codiva writes nothing to it).
pub fn codex_exec_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/codex-exec")
}

/// Writes the agent's stdout lines from a wire log as `<dir>/<name>.jsonl`, with the run's
/// paths and the mock's address replaced by placeholders.
pub fn capture(name: &str, wire_log: &Path, replacements: &[(&Path, &str)], mock_url: &str) {
    let out = sanitised(wire_log, replacements, mock_url, false);
    std::fs::create_dir_all(dir()).expect("fixture dir");
    std::fs::write(dir().join(format!("{name}.jsonl")), out).expect("write fixture");
}

/// Like [`capture`], keeping both directions (each line prefixed `>> ` or `<< `), in `dir`.
pub fn capture_both(
    dir: &Path,
    name: &str,
    wire_log: &Path,
    replacements: &[(&Path, &str)],
    mock_url: &str,
) {
    let out = sanitised(wire_log, replacements, mock_url, true);
    std::fs::create_dir_all(dir).expect("fixture dir");
    std::fs::write(dir.join(format!("{name}.jsonl")), out).expect("write fixture");
}

fn sanitised(
    wire_log: &Path,
    replacements: &[(&Path, &str)],
    mock_url: &str,
    both: bool,
) -> String {
    let text = std::fs::read_to_string(wire_log).expect("wire log");
    let mut pairs: Vec<(String, String)> = Vec::new();
    for (path, placeholder) in replacements {
        pairs.push((path.display().to_string(), (*placeholder).to_owned()));
        if let Ok(real) = path.canonicalize() {
            pairs.push((real.display().to_string(), (*placeholder).to_owned()));
        }
    }
    // Longest first, so that a path inside another is replaced by the more specific name.
    pairs.sort_by_key(|(from, _)| std::cmp::Reverse(from.len()));
    pairs.push((mock_url.to_owned(), "http://127.0.0.1:<PORT>".to_owned()));
    let port = mock_url.rsplit(':').next().unwrap_or_default().to_owned();
    pairs.push((format!("127.0.0.1:{port}"), "127.0.0.1:<PORT>".to_owned()));
    let mut out = String::new();
    if let Ok(host) = std::fs::read_to_string("/proc/sys/kernel/hostname") {
        let host = host.trim();
        if !host.is_empty() {
            pairs.push((
                format!("\"serverName\":\"{host}\""),
                "\"serverName\":\"<HOSTNAME>\"".to_owned(),
            ));
        }
    }
    for line in text.lines() {
        let (prefix, body) = match (line.split_once(" << "), line.split_once(" >> ")) {
            (Some((head, body)), _) if !head.contains('{') => ("<< ", body),
            (_, Some((head, body))) if both && !head.contains('{') => (">> ", body),
            _ => continue,
        };
        let mut body = body.to_owned();
        for (from, to) in &pairs {
            body = body.replace(from.as_str(), to);
        }
        if both {
            out.push_str(prefix);
        }
        out.push_str(&body);
        out.push('\n');
    }
    out
}
