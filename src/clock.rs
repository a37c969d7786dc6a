//! Wall-clock times as the transaction counter and metrics print and keep them.

use std::time::{SystemTime, UNIX_EPOCH};

/// `YYYY-MM-DD HH:MM:SS` in UTC, the form the jobs repository keys samples by.
pub fn utc(t: SystemTime) -> String {
    let secs = t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let days = (secs / 86_400) as i64;
    let rem = secs % 86_400;
    // Civil date from days since 1970-01-01 (Howard Hinnant's algorithm).
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = doy - (153 * mp + 2) / 5 + 1;
    let m = if mp < 10 { mp + 3 } else { mp - 9 };
    let y = yoe + era * 400 + i64::from(m <= 2);
    format!(
        "{y:04}-{m:02}-{d:02} {:02}:{:02}:{:02}",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// Milliseconds since the Unix epoch, for the agent's JSON.
pub fn unix_ms(t: SystemTime) -> u64 {
    t.duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The inverse of [`unix_ms`].
pub fn from_unix_ms(ms: u64) -> SystemTime {
    UNIX_EPOCH + std::time::Duration::from_millis(ms)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    #[test]
    fn formats_known_instants() {
        assert_eq!(utc(UNIX_EPOCH), "1970-01-01 00:00:00");
        assert_eq!(
            utc(UNIX_EPOCH + Duration::from_secs(1_744_650_581)),
            "2025-04-14 17:09:41"
        );
        assert_eq!(
            utc(UNIX_EPOCH + Duration::from_secs(951_825_600)),
            "2000-02-29 12:00:00"
        );
        let t = from_unix_ms(1_744_650_581_250);
        assert_eq!(unix_ms(t), 1_744_650_581_250);
    }
}
