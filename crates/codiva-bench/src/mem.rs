//! The process's memory figures from `/proc/self/status` (Linux).

/// Resident set size now and its high-water mark, in bytes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Rss {
    pub rss: u64,
    pub hwm: u64,
}

/// Reads `VmRSS` / `VmHWM`; zeros where unavailable.
pub fn read() -> Rss {
    std::fs::read_to_string("/proc/self/status")
        .map(|status| parse_status(&status))
        .unwrap_or_default()
}

pub fn parse_status(status: &str) -> Rss {
    let kib = |key: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(key))
            .and_then(|rest| {
                rest.trim()
                    .trim_end_matches("kB")
                    .trim()
                    .parse::<u64>()
                    .ok()
            })
            .map_or(0, |kib| kib * 1024)
    };
    Rss {
        rss: kib("VmRSS:"),
        hwm: kib("VmHWM:"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_status() {
        let status = "Name:\tx\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n";
        assert_eq!(
            parse_status(status),
            Rss {
                rss: 1024 * 1024,
                hwm: 2048 * 1024
            }
        );
        assert!(read().rss > 0);
    }
}
