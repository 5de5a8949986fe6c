//! What the agents use, as the manager measured it (RSS and CPU of each agent's process
//! group, `SessionInfo::resources`): a list column when the terminal is wide enough, the
//! session view's title and a total in the header. Only numbers the manager sent are shown.

use codiva_protocol::manager::{ResourceUsage, SessionInfo};

use crate::i18n::{AppText, tf};
use crate::width::str_width;

/// The list column's width, its leading space included (`  834 MiB   12%`).
pub const COLUMN: usize = 15;

/// `834 MiB`, `1.2 GiB`, `512 KiB`.
pub fn memory(bytes: u64) -> String {
    const KIB: u64 = 1024;
    const MIB: u64 = 1024 * KIB;
    const GIB: u64 = 1024 * MIB;
    match bytes {
        0..MIB => format!("{} KiB", bytes.div_ceil(KIB)),
        MIB..GIB => format!("{} MiB", bytes / MIB),
        _ => format!("{:.1} GiB", bytes as f64 / GIB as f64),
    }
}

/// `12%` (of one core; above 100 with more than one).
pub fn cpu(percent: f64) -> String {
    format!("{}%", percent.max(0.0).round())
}

/// The list cell, right-aligned in [`COLUMN`] cells (blank without a sample).
pub fn cell(resources: Option<&ResourceUsage>) -> String {
    let text = resources.map_or_else(String::new, |r| {
        format!("{:>8} {:>5}", memory(r.rss_bytes), cpu(r.cpu_percent))
    });
    let pad = COLUMN.saturating_sub(str_width(&text));
    format!("{}{text}", " ".repeat(pad))
}

/// The session view's part: `834 MiB · CPU 12%`.
pub fn session(resources: &ResourceUsage) -> String {
    tf(
        AppText::ResourcesSession,
        &[&memory(resources.rss_bytes), &cpu(resources.cpu_percent)],
    )
}

/// The header's total over every session with a sample (`None`: no agent runs).
pub fn total(sessions: &[SessionInfo]) -> Option<String> {
    let samples: Vec<&ResourceUsage> = sessions
        .iter()
        .filter_map(|s| s.resources.as_ref())
        .collect();
    if samples.is_empty() {
        return None;
    }
    let rss = samples.iter().map(|r| r.rss_bytes).sum();
    let cpu_total = samples.iter().map(|r| r.cpu_percent).sum();
    Some(tf(
        AppText::ResourcesTotal,
        &[&memory(rss), &cpu(cpu_total)],
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sizes_and_percentages_read_at_a_glance() {
        assert_eq!(memory(300 * 1024), "300 KiB");
        assert_eq!(memory(834 * 1024 * 1024 + 5), "834 MiB");
        assert_eq!(memory(1_288_490_189), "1.2 GiB");
        assert_eq!(cpu(12.46), "12%");
        assert_eq!(cpu(250.0), "250%");
        let usage = ResourceUsage {
            rss_bytes: 834 * 1024 * 1024,
            cpu_percent: 3.0,
            processes: 2,
        };
        assert_eq!(cell(Some(&usage)), "  834 MiB    3%");
        assert_eq!(str_width(&cell(Some(&usage))), COLUMN);
        assert_eq!(str_width(&cell(None)), COLUMN);
    }
}
