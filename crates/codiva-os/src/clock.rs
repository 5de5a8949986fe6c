//! The local time zone's offset from UTC, for showing a wall-clock time (a usage limit's
//! reset) the way the user reads clocks. Asked of `date +%z` (no time zone database in std).

/// Seconds east of UTC now (`+0900` → 32400); `None` when `date` cannot tell.
pub fn utc_offset_seconds() -> Option<i64> {
    let output = std::process::Command::new("date")
        .arg("+%z")
        .stdin(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .output()
        .ok()?;
    parse_offset(String::from_utf8_lossy(&output.stdout).trim())
}

/// `+0900`, `-0330` → seconds.
fn parse_offset(text: &str) -> Option<i64> {
    let (sign, digits) = match text.as_bytes().first()? {
        b'+' => (1, &text[1..]),
        b'-' => (-1, &text[1..]),
        _ => return None,
    };
    if digits.len() != 4 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let hours: i64 = digits[..2].parse().ok()?;
    let minutes: i64 = digits[2..].parse().ok()?;
    Some(sign * (hours * 3600 + minutes * 60))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_read_as_seconds() {
        assert_eq!(parse_offset("+0900"), Some(32400));
        assert_eq!(parse_offset("-0330"), Some(-12600));
        assert_eq!(parse_offset("+0000"), Some(0));
        assert_eq!(parse_offset("JST"), None);
        assert_eq!(parse_offset("+09"), None);
    }
}
