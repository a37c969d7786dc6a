//! Job ids (24 hexadecimal characters that sort by time, as HammerDB's do) and job times.

use std::time::{SystemTime, UNIX_EPOCH};

/// Characters in a job id.
pub const LEN: usize = 24;
/// The shortest prefix `jobs` accepts for an id: its first 8 characters are the second it was
/// made in, so jobs started back to back share them; 4 tell apart jobs some hours apart, and
/// any unambiguous prefix from there on names its job.
pub const MIN_PREFIX: usize = 4;

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

/// Whether `s` is hexadecimal but shorter than [`MIN_PREFIX`]: a job id cut too short.
pub fn too_short(s: &str) -> bool {
    let s = s.trim();
    !s.is_empty() && s.len() < MIN_PREFIX && s.chars().all(|c| c.is_ascii_hexdigit())
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

pub use crate::clock::{iso_time, signed_ms as unix_ms, text_time};

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
        assert_eq!(parse("67F"), None);
        assert!(too_short("6b0") && !too_short("6B0E") && !too_short("xyz"));
        assert_eq!(parse("6b0e"), Some(IdArg::Prefix("6B0E".into())));
        assert_eq!(parse("67FD24A6FDB403E2534383930"), None);
        assert!(looks_like_id("67FD24A6FDB403E25343839Z"));
        assert!(!looks_like_id("report"));
        assert!(!looks_like_id("results"));
    }
}
