//! `codiva-mock --script FILE.json [--port N] [--dump FILE.jsonl]`: serve a mock script until
//! killed; `--dump` appends each request (method, path, body) as a JSON line.

use std::path::PathBuf;

use anyhow::{Context as _, bail};
use codiva_testkit::{MockServer, Script};

const USAGE: &str = "usage: codiva-mock --script FILE.json [--port N] [--dump FILE.jsonl]";

fn main() -> anyhow::Result<()> {
    let mut script_path: Option<PathBuf> = None;
    let mut port: u16 = 0;
    let mut dump: Option<PathBuf> = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--script" => script_path = Some(args.next().context(USAGE)?.into()),
            "--dump" => dump = Some(args.next().context(USAGE)?.into()),
            "--port" => port = args.next().context(USAGE)?.parse().context("bad --port")?,
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(());
            }
            other => bail!("unknown argument {other:?}\n{USAGE}"),
        }
    }
    let script = Script::from_file(&script_path.context(USAGE)?)?;
    let server = MockServer::start_on(script, port)?;
    println!("listening on {}", server.url());
    let mut seen = 0;
    loop {
        std::thread::sleep(std::time::Duration::from_millis(200));
        let requests = server.requests();
        let unmatched = server.unmatched();
        for r in requests.iter().skip(seen) {
            let note = match r.rule {
                Some(i) => format!("rule {i}"),
                None if unmatched.contains(r) => "UNMATCHED".to_owned(),
                None => "builtin".to_owned(),
            };
            eprintln!("{} {} -> {note}", r.method, r.path);
            if let Some(dump) = &dump {
                use std::io::Write as _;
                let line = serde_json::json!({"method": r.method, "path": r.path, "body": r.body});
                let mut file = std::fs::OpenOptions::new()
                    .create(true)
                    .append(true)
                    .open(dump)
                    .with_context(|| format!("opening {}", dump.display()))?;
                writeln!(file, "{line}")?;
            }
        }
        seen = requests.len();
    }
}
