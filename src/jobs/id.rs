//! Job ids (24 hexadecimal characters that sort by time, as HammerDB's do) and job times.

use std::time::{SystemTime, UNIX_EPOCH};

/// Characters in a job id.
pub const LEN: usize = 24;
/// The shortest prefix `jobs` accepts for an id.
pub const MIN_PREFIX: usize = 8;

/// A new job id: 8 hex digits of Unix seconds, 4 of the fraction of the second, 12 random.
/// Ids sort by the time they were made; two made at once differ in 48 random bits.
pub fn new_id() -> String {
    use rand::Rng;
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap_or_default();
    let fraction = (u64::from(now.subsec_nanos()) << 16) / 1_000_000_000;
    let random: u64 = rand::rng().random::<u64>() & 0xFFFF_FFFF_FFFF;
    format!(
        "{:08X}{:04X}{:012X}",
        now.as_secs() as u32,
        fraction as u16,
        random
    )
}

/// What a user typed where a job id belongs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdArg {
    /// All 24 characters, upper-cased.
    Full(String),
    /// The first characters of an id (at least [`MIN_PREFIX`]), upper-cased.
    Prefix(String),
}

/// Reads a job id or a prefix of one; `None` when `s` cannot be either.
pub fn parse(s: &str) -> Option<IdArg> {
    let s = s.trim();
    if !s.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    let up = s.to_ascii_uppercase();
    match s.len() {
        LEN => Some(IdArg::Full(up)),
        n if (MIN_PREFIX..LEN).contains(&n) => Some(IdArg::Prefix(up)),
        _ => None,
    }
}

/// Whether a word looks like an attempt at a job id (hex digits mostly), so that a bad one
/// is reported as a malformed id rather than as an unknown subcommand.
pub fn looks_like_id(s: &str) -> bool {
    let hex = s.chars().filter(char::is_ascii_hexdigit).count();
    s.len() >= MIN_PREFIX && hex * 4 >= s.len() * 3
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    unix_ms(SystemTime::now())
}

pub fn unix_ms(t: SystemTime) -> i64 {
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

/// `2025-04-14 09:30:05` (UTC), for tables.
pub fn text_time(ms: i64) -> String {
    let (y, mo, d, h, mi, s, _) = parts(ms);
    format!("{y:04}-{mo:02}-{d:02} {h:02}:{mi:02}:{s:02}")
}

/// `2025-04-14T09:30:05.123Z`, for JSON.
pub fn iso_time(ms: i64) -> String {
    let (y, mo, d, h, mi, s, milli) = parts(ms);
    format!("{y:04}-{mo:02}-{d:02}T{h:02}:{mi:02}:{s:02}.{milli:03}Z")
}

pub fn ser_time<S: serde::Serializer>(ms: &i64, s: S) -> Result<S::Ok, S::Error> {
    s.serialize_str(&iso_time(*ms))
}

pub fn ser_opt_time<S: serde::Serializer>(ms: &Option<i64>, s: S) -> Result<S::Ok, S::Error> {
    match ms {
        Some(ms) => s.serialize_str(&iso_time(*ms)),
        None => s.serialize_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_24_hex_and_sort_by_time() {
        let a = new_id();
        std::thread::sleep(std::time::Duration::from_millis(2));
        let b = new_id();
        assert_eq!(a.len(), LEN);
        assert!(a
            .chars()
            .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_lowercase()));
        assert!(a[..12] < b[..12], "{a} {b}");
        assert_ne!(a, b);
        assert_eq!(parse(&a), Some(IdArg::Full(a.clone())));
        assert_eq!(
            parse(&a[..10].to_ascii_lowercase()),
            Some(IdArg::Prefix(a[..10].to_string()))
        );
    }

    #[test]
    fn bad_ids_are_refused() {
        assert_eq!(parse("67FD24A6FDB403E25343839Z"), None);
        assert_eq!(parse("67FD24A"), None);
        assert_eq!(parse("67FD24A6FDB403E2534383930"), None);
        assert!(looks_like_id("67FD24A6FDB403E25343839Z"));
        assert!(!looks_like_id("report"));
        assert!(!looks_like_id("results"));
    }

    #[test]
    fn times_render_in_utc() {
        assert_eq!(text_time(0), "1970-01-01 00:00:00");
        assert_eq!(iso_time(1_744_623_005_123), "2025-04-14T09:30:05.123Z");
        assert_eq!(text_time(951_782_400_000), "2000-02-29 00:00:00");
        assert_eq!(iso_time(-1), "1969-12-31T23:59:59.999Z");
    }
}
