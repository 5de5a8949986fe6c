//! RFC 3339 times as agents write them in their records and listings
//! (`2026-12-07T08:30:00.125Z`, or with an offset `+09:00`), read as milliseconds since the
//! epoch: Claude Code's transcripts and ACP agents' `session/list` both carry them.

/// Milliseconds since the epoch of an RFC 3339 time (`2026-12-07T08:30:00.125Z`, or with an
/// offset `+09:00`); `None` for anything else.
pub fn millis(text: &str) -> Option<u64> {
    let number = |range: std::ops::Range<usize>| -> Option<i64> {
        let part = text.get(range)?;
        part.bytes()
            .all(|b| b.is_ascii_digit())
            .then(|| part.parse().ok())?
    };
    if !matches!(text.as_bytes().get(10), Some(b'T' | b't' | b' ')) {
        return None;
    }
    let (year, month, day) = (number(0..4)?, number(5..7)?, number(8..10)?);
    let (hour, minute, second) = (number(11..13)?, number(14..16)?, number(17..19)?);
    if !(1..=12).contains(&month) || !(1..=31).contains(&day) || hour > 23 || minute > 59 {
        return None;
    }
    let mut rest = text.get(19..)?;
    let mut millis = 0;
    if let Some(fraction) = rest.strip_prefix('.') {
        let digits = fraction.bytes().take_while(u8::is_ascii_digit).count();
        let padded: String = fraction[..digits]
            .chars()
            .chain("000".chars())
            .take(3)
            .collect();
        millis = padded.parse::<i64>().ok()?;
        rest = &fraction[digits..];
    }
    let offset_s = match rest.as_bytes().first() {
        Some(b'Z' | b'z') if rest.len() == 1 => 0,
        Some(sign @ (b'+' | b'-')) if rest.len() == 6 => {
            let hours: i64 = rest.get(1..3)?.parse().ok()?;
            let minutes: i64 = rest.get(4..6)?.parse().ok()?;
            let offset = hours * 3600 + minutes * 60;
            if *sign == b'+' { offset } else { -offset }
        }
        _ => return None,
    };
    // Days from civil (Howard Hinnant's algorithm).
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    let days = era * 146_097 + doe - 719_468;
    let seconds = ((days * 24 + hour) * 60 + minute) * 60 + second - offset_s;
    u64::try_from(seconds * 1000 + millis).ok()
}

#[cfg(test)]
mod tests {
    use super::millis;

    #[test]
    fn times_read_with_fractions_and_offsets() {
        assert_eq!(millis("1970-01-01T00:00:00.000Z"), Some(0));
        assert_eq!(millis("1970-01-01T00:00:01Z"), Some(1000));
        assert_eq!(millis("1970-01-01T00:00:01.5Z"), Some(1500));
        assert_eq!(millis("1970-01-02T00:00:01.5Z"), Some(86_401_500));
        assert_eq!(millis("1970-01-01T09:00:00+09:00"), Some(0));
        assert_eq!(millis("2000-03-01T00:00:00Z"), Some(951_868_800_000));
        assert_eq!(millis("2026-11-30T05:35:06.125Z"), Some(1_796_016_906_125));
        assert_eq!(millis("2026-12-07T08:30:00.125Z"), Some(1_796_632_200_125));
    }

    #[test]
    fn anything_else_is_none() {
        assert_eq!(millis("yesterday"), None);
        assert_eq!(millis("garbage"), None);
        assert_eq!(millis("2026-13-07T08:30:00Z"), None);
        assert_eq!(millis("2026-13-30T05:35:06.125Z"), None);
        // No offset: not a time of its own.
        assert_eq!(millis("2026-12-07T08:30:00"), None);
    }
}
