//! Wall-clock times as hammer prints and keeps them (counter, metrics, jobs, load dates), in UTC.

use std::time::{SystemTime, UNIX_EPOCH};

/// `YYYY-MM-DD HH:MM:SS` in UTC, the form the jobs repository keys samples by.
pub fn utc(t: SystemTime) -> String {
    text_time(signed_ms(t))
}

/// Milliseconds since the Unix epoch, negative before it.
pub fn signed_ms(t: SystemTime) -> i64 {
    match t.duration_since(UNIX_EPOCH) {
        Ok(d) => d.as_millis() as i64,
        Err(e) => -(e.duration().as_millis() as i64),
    }
}

/// Days since 1970-01-01 to (year, month, day), proleptic Gregorian (Howard Hinnant's algorithm).
fn civil(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// (year, month, day, hour, minute, second, millisecond) of milliseconds since the epoch.
fn parts(ms: i64) -> (i64, u32, u32, i64, i64, i64, i64) {
    let secs = ms.div_euclid(1000);
    let (y, mo, d) = civil(secs.div_euclid(86_400));
    let sod = secs.rem_euclid(86_400);
    (
        y,
        mo,
        d,
        sod / 3600,
        sod % 3600 / 60,
        sod % 60,
        ms.rem_euclid(1000),
    )
}

/// `2025-04-14 09:30:05` (UTC), for tables and date columns.
pub fn text_time(ms: i64) -> String {
    let (y, mo, d, h, mi, s, _) = parts(ms);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")
}

/// `2025-04-14T09:30:05.123Z`, for JSON.
pub fn iso_time(ms: i64) -> String {
    let (y, mo, d, h, mi, s, milli) = parts(ms);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
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
        assert_eq!(
            utc(UNIX_EPOCH + Duration::from_secs(1_798_761_599)),
            "2026-12-31 23:59:59"
        );
        let t = from_unix_ms(1_744_650_581_250);
        assert_eq!(unix_ms(t), 1_744_650_581_250);
    }

    #[test]
    fn times_render_in_utc() {
        assert_eq!(text_time(0), "1970-01-01 00:00:00");
        assert_eq!(iso_time(1_744_623_005_123), "2025-04-14T09:30:05.123Z");
        assert_eq!(text_time(951_782_400_000), "2000-02-29 00:00:00");
        assert_eq!(iso_time(-1), "1969-12-31T23:59:59.999Z");
    }
}
