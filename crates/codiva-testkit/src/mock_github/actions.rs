//! GitHub Actions runs for `gh run view <id> --log-failed`: the REST requests gh 2.23 sends
//! (recorded in `fixtures/gh/requests-2.23.0.jsonl`) — the run, its workflow, its jobs, and
//! the run's logs as a zip archive of `<job>/<step number>_<step name>.txt` files — answered
//! with bodies shaped after GitHub's REST schema for the fields gh reads.

use serde_json::{Value, json};

/// One step of a job, with its log text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockStep {
    pub name: String,
    /// `success`, `failure`, `skipped`, …
    pub conclusion: String,
    pub log: String,
}

/// One job of a run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockJob {
    pub id: u64,
    pub name: String,
    pub conclusion: String,
    pub steps: Vec<MockStep>,
}

/// A completed workflow run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MockRun {
    pub id: u64,
    pub head_branch: String,
    pub conclusion: String,
    pub jobs: Vec<MockJob>,
}

const WORKFLOW_ID: u64 = 7;
const STAMP: &str = "2026-12-01T00:00:00Z";

fn run_node(run: &MockRun, api: &str, web: &str) -> Value {
    json!({
        "id": run.id,
        "name": "CI",
        "display_title": "CI",
        "head_branch": run.head_branch,
        "head_sha": "0".repeat(40),
        "path": ".github/workflows/ci.yml",
        "run_attempt": 1,
        "event": "pull_request",
        "status": "completed",
        "conclusion": run.conclusion,
        "workflow_id": WORKFLOW_ID,
        "created_at": STAMP,
        "updated_at": STAMP,
        "url": format!("{api}/actions/runs/{}", run.id),
        "html_url": format!("{web}/actions/runs/{}", run.id),
        "jobs_url": format!("{api}/actions/runs/{}/jobs", run.id),
        "logs_url": format!("{api}/actions/runs/{}/logs", run.id),
    })
}

fn jobs_node(run: &MockRun, api: &str, web: &str) -> Value {
    let jobs: Vec<Value> = run
        .jobs
        .iter()
        .map(|job| {
            let steps: Vec<Value> = job
                .steps
                .iter()
                .enumerate()
                .map(|(i, step)| {
                    json!({"name": step.name, "status": "completed",
                           "conclusion": step.conclusion, "number": i + 1,
                           "started_at": STAMP, "completed_at": STAMP})
                })
                .collect();
            json!({
                "id": job.id,
                "run_id": run.id,
                "name": job.name,
                "status": "completed",
                "conclusion": job.conclusion,
                "started_at": STAMP,
                "completed_at": STAMP,
                "url": format!("{api}/actions/jobs/{}", job.id),
                "html_url": format!("{web}/actions/runs/{}/job/{}", run.id, job.id),
                "steps": steps,
            })
        })
        .collect();
    json!({"total_count": jobs.len(), "jobs": jobs})
}

/// The run's log archive, as GitHub serves it.
fn logs_zip(run: &MockRun) -> Vec<u8> {
    let mut files = Vec::new();
    for job in &run.jobs {
        for (i, step) in job.steps.iter().enumerate() {
            files.push((
                format!("{}/{}_{}.txt", job.name, i + 1, step.name),
                step.log.as_bytes().to_vec(),
            ));
        }
    }
    stored_zip(&files)
}

/// The answer to a REST request under `/api/v3/repos/{owner}/{repo}/` (`rest` is the part
/// after it, without the query string): `Some((content type, body))`, or `None` if unknown.
pub(crate) fn answer(
    runs: &[MockRun],
    rest: &str,
    api: &str,
    web: &str,
) -> Option<(&'static str, Vec<u8>)> {
    let parts: Vec<&str> = rest.split('/').collect();
    let json_body = |v: Value| {
        Some((
            "application/json; charset=utf-8",
            v.to_string().into_bytes(),
        ))
    };
    match parts.as_slice() {
        ["actions", "workflows", id] if id.parse() == Ok(WORKFLOW_ID) => json_body(json!({
            "id": WORKFLOW_ID, "name": "CI", "path": ".github/workflows/ci.yml",
            "state": "active",
        })),
        ["actions", "runs", id, tail @ ..] => {
            let run = runs.iter().find(|r| id.parse() == Ok(r.id))?;
            match tail {
                [] => json_body(run_node(run, api, web)),
                ["jobs"] => json_body(jobs_node(run, api, web)),
                ["logs"] => Some(("application/zip", logs_zip(run))),
                _ => None,
            }
        }
        _ => None,
    }
}

/// CRC-32 (IEEE), bit by bit: the archives are small.
fn crc32(data: &[u8]) -> u32 {
    let mut crc = 0xFFFF_FFFFu32;
    for &byte in data {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            let mask = (crc & 1).wrapping_neg();
            crc = (crc >> 1) ^ (0xEDB8_8320 & mask);
        }
    }
    !crc
}

fn u16le(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&u16::try_from(v).unwrap_or(u16::MAX).to_le_bytes());
}

fn u32le(out: &mut Vec<u8>, v: usize) {
    out.extend_from_slice(&u32::try_from(v).unwrap_or(u32::MAX).to_le_bytes());
}

/// A zip archive with every file stored (method 0), UTF-8 names.
fn stored_zip(files: &[(String, Vec<u8>)]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut central = Vec::new();
    for (name, data) in files {
        let offset = out.len();
        let crc = crc32(data) as usize;
        // Local file header.
        out.extend_from_slice(&0x0403_4b50u32.to_le_bytes());
        u16le(&mut out, 20); // version needed
        u16le(&mut out, 1 << 11); // flags: UTF-8 names
        u16le(&mut out, 0); // stored
        u16le(&mut out, 0); // time
        u16le(&mut out, 0x21); // date: 1980-01-01
        u32le(&mut out, crc);
        u32le(&mut out, data.len());
        u32le(&mut out, data.len());
        u16le(&mut out, name.len());
        u16le(&mut out, 0);
        out.extend_from_slice(name.as_bytes());
        out.extend_from_slice(data);
        // Central directory entry.
        central.extend_from_slice(&0x0201_4b50u32.to_le_bytes());
        u16le(&mut central, 20); // made by
        u16le(&mut central, 20); // needed
        u16le(&mut central, 1 << 11);
        u16le(&mut central, 0);
        u16le(&mut central, 0);
        u16le(&mut central, 0x21);
        u32le(&mut central, crc);
        u32le(&mut central, data.len());
        u32le(&mut central, data.len());
        u16le(&mut central, name.len());
        u16le(&mut central, 0); // extra
        u16le(&mut central, 0); // comment
        u16le(&mut central, 0); // disk
        u16le(&mut central, 0); // internal attributes
        u32le(&mut central, 0); // external attributes
        u32le(&mut central, offset);
        central.extend_from_slice(name.as_bytes());
    }
    let central_offset = out.len();
    let central_len = central.len();
    out.extend_from_slice(&central);
    // End of central directory.
    out.extend_from_slice(&0x0605_4b50u32.to_le_bytes());
    u16le(&mut out, 0);
    u16le(&mut out, 0);
    u16le(&mut out, files.len());
    u16le(&mut out, files.len());
    u32le(&mut out, central_len);
    u32le(&mut out, central_offset);
    u16le(&mut out, 0);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_of_a_known_string() {
        assert_eq!(crc32(b"123456789"), 0xCBF4_3926);
    }
}
