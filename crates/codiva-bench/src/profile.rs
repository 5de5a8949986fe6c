//! Where parsing time goes, by line kind: each line is parsed with `parse_line`, and once
//! more with only the first pass `parse_line` makes (a replica of its private type/subtype
//! probe), timed one by one.

use std::borrow::Cow;
use std::collections::HashMap;
use std::hint::black_box;
use std::time::{Duration, Instant};

use serde::Deserialize;

use crate::corpus::{Corpus, Fixtures, Position};

/// Same shape as `codiva_wire::claude::inbound::Probe`.
#[derive(Deserialize)]
struct Probe<'a> {
    #[serde(rename = "type", borrow)]
    kind: Cow<'a, str>,
    #[serde(default, borrow)]
    subtype: Option<Cow<'a, str>>,
}

/// Totals for one kind of line.
#[derive(Debug, Clone, Default)]
pub struct KindCost {
    pub kind: String,
    pub lines: u64,
    pub bytes: u64,
    pub parse: Duration,
    pub probe: Duration,
}

/// Kinds by parse time, most expensive first.
pub fn by_kind(fixtures: &Fixtures, corpus: &Corpus) -> Vec<KindCost> {
    let mut costs: HashMap<&str, KindCost> = HashMap::new();
    let mut pos = Position::default();
    for index in 0..corpus.lines.len() {
        let line = corpus.line(index);
        let kind = fixtures.files[pos.file].kinds[pos.line].as_str();
        let t0 = Instant::now();
        let parsed = codiva_wire::claude::parse_line(black_box(line));
        drop(black_box(parsed));
        let t1 = Instant::now();
        let probe = serde_json::from_slice::<Probe>(black_box(line))
            .map(|probe| (probe.kind.len(), probe.subtype.map(|s| s.len())));
        drop(black_box(probe));
        let t2 = Instant::now();
        let cost = costs.entry(kind).or_insert_with(|| KindCost {
            kind: kind.to_owned(),
            ..KindCost::default()
        });
        cost.lines += 1;
        cost.bytes += line.len() as u64 + 1;
        cost.parse += t1 - t0;
        cost.probe += t2 - t1;
        pos.advance(fixtures);
    }
    let mut costs: Vec<KindCost> = costs.into_values().collect();
    costs.sort_by(|a, b| b.parse.cmp(&a.parse).then_with(|| a.kind.cmp(&b.kind)));
    costs
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::corpus::default_fixture_dir;

    #[test]
    fn every_line_lands_in_one_kind() {
        let fixtures = Fixtures::load(&default_fixture_dir()).unwrap();
        let corpus = Corpus::build(&fixtures, 1);
        let costs = by_kind(&fixtures, &corpus);
        let lines: u64 = costs.iter().map(|cost| cost.lines).sum();
        let bytes: u64 = costs.iter().map(|cost| cost.bytes).sum();
        assert_eq!(lines, corpus.lines.len() as u64);
        assert_eq!(bytes, corpus.bytes.len() as u64);
        assert!(
            costs
                .iter()
                .any(|cost| cost.kind == "control_response/initialize")
        );
        assert!(
            costs
                .iter()
                .any(|cost| cost.kind == "stream_event/content_block_delta")
        );
    }
}
