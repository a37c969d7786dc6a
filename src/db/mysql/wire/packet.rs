//! The packets of a MariaDB/MySQL connection, read in place: the framing (length and
//! sequence id), length-encoded integers, and the OK, EOF and ERR packets every reply may
//! hold.

use mysql_common::constants::{CapabilityFlags, StatusFlags};
use mysql_common::io::ParseBuf;
use mysql_common::packets::ErrPacket;

use super::WireError;
use crate::db::mysql::server_failure;

/// A packet of this length continues in the next one: never a reply this connection expects.
pub(super) const MAX_PAYLOAD: usize = 0xFF_FFFF;

/// A packet in a buffer: its payload, its sequence id and where the next one starts.
pub(super) type Frame<'a> = (&'a [u8], u8, usize);

/// The packet at `data[at..]`, or None when it is not all there yet.
pub(super) fn frame(data: &[u8], at: usize) -> Result<Option<Frame<'_>>, WireError> {
    let Some(head) = at.checked_add(4).and_then(|end| data.get(at..end)) else {
        return Ok(None);
    };
    let len = usize::from(head[0]) | usize::from(head[1]) << 8 | usize::from(head[2]) << 16;
    if len == MAX_PAYLOAD {
        return Err(WireError::protocol("a packet of 16 MiB or more"));
    }
    let seq = head[3];
    // At most 16 MiB past an index into a slice: no overflow.
    let next = at + 4 + len;
    Ok(data.get(at + 4..next).map(|payload| (payload, seq, next)))
}

/// A length-encoded integer at `p[*at..]`, or None for the NULL marker.
pub(super) fn lenenc(p: &[u8], at: &mut usize) -> Result<Option<u64>, WireError> {
    let short = || WireError::protocol("a truncated length");
    let first = *p.get(*at).ok_or_else(short)?;
    let width = match first {
        0xFB => {
            *at += 1;
            return Ok(None);
        }
        0xFC => 2,
        0xFD => 3,
        0xFE => 8,
        0xFF => return Err(WireError::protocol("a length starting with 0xFF")),
        v => {
            *at += 1;
            return Ok(Some(u64::from(v)));
        }
    };
    let bytes = p.get(*at + 1..*at + 1 + width).ok_or_else(short)?;
    let mut v = 0u64;
    for (k, b) in bytes.iter().enumerate() {
        v |= u64::from(*b) << (8 * k);
    }
    *at += 1 + width;
    Ok(Some(v))
}

/// What an OK packet says.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct OkPacket {
    pub(super) affected: u64,
    pub(super) status: StatusFlags,
    pub(super) warnings: u16,
}

/// An OK packet (also an OK sent in place of EOF, header 0xFE): rows affected, the last
/// insert id, the server status and the warnings.
pub(super) fn ok_packet(p: &[u8]) -> Result<OkPacket, WireError> {
    let mut at = 1;
    let affected = lenenc(p, &mut at)?.unwrap_or(0);
    lenenc(p, &mut at)?;
    let s = p
        .get(at..at + 2)
        .ok_or_else(|| WireError::protocol("a truncated OK packet"))?;
    let status = StatusFlags::from_bits_truncate(u16::from_le_bytes([s[0], s[1]]));
    let warnings = p
        .get(at + 2..at + 4)
        .map_or(0, |w| u16::from_le_bytes([w[0], w[1]]));
    Ok(OkPacket {
        affected,
        status,
        warnings,
    })
}

/// The server status of an EOF packet: 0xFE, warnings, status.
pub(super) fn eof_status(p: &[u8]) -> Result<StatusFlags, WireError> {
    let s = p
        .get(3..5)
        .ok_or_else(|| WireError::protocol("a truncated EOF packet"))?;
    Ok(StatusFlags::from_bits_truncate(u16::from_le_bytes([
        s[0], s[1],
    ])))
}

/// The error an ERR packet carries, classified as `mysql::classify` does.
pub(super) fn server_error(p: &[u8], caps: CapabilityFlags) -> WireError {
    match ParseBuf(p).parse::<ErrPacket>(caps) {
        Ok(ErrPacket::Error(e)) => {
            let state = e
                .sql_state_ref()
                .map(|s| s.as_str().into_owned())
                .unwrap_or_else(|| "HY000".into());
            WireError {
                kind: server_failure(e.error_code(), &state),
                detail: e.message_str().into_owned(),
                code: e.error_code(),
            }
        }
        Ok(ErrPacket::Progress(_)) => WireError::protocol("a progress report"),
        Err(e) => WireError::protocol(format!("an unreadable error packet: {e}")),
    }
}

pub(super) fn put_lenenc(out: &mut Vec<u8>, v: u64) {
    match v {
        0..0xFB => out.push(v as u8),
        0xFB..0x1_0000 => {
            out.push(0xFC);
            out.extend_from_slice(&(v as u16).to_le_bytes());
        }
        0x1_0000..0x100_0000 => {
            out.push(0xFD);
            out.extend_from_slice(&(v as u32).to_le_bytes()[..3]);
        }
        _ => {
            out.push(0xFE);
            out.extend_from_slice(&v.to_le_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use mysql_common::constants::{ColumnType, StatusFlags};

    use super::*;
    use crate::db::mysql::wire::testkit::*;
    use crate::db::mysql::wire::{Done, Expect, Outcome};
    use crate::fault::Failure;

    #[test]
    fn server_errors_are_classified_by_code_and_state() {
        let cases = [
            (1213, "40001", "Deadlock found", Failure::Retry),
            (
                1047,
                "08S01",
                "WSREP has not yet prepared node",
                Failure::Lost,
            ),
            (1205, "HY000", "Lock wait timeout exceeded", Failure::Retry),
            (1644, "40001", "hammer test: try again", Failure::Retry),
            (1927, "70100", "Connection was killed", Failure::Lost),
            (1045, "28000", "Access denied", Failure::Auth),
            (1644, "45000", "customer 3001 not found", Failure::Other),
        ];
        for (code, state, message, kind) in cases {
            // An error may come first or after a result set.
            let mut late = packet(1, &[1]);
            late.extend(packet(2, &column("n", ColumnType::MYSQL_TYPE_LONG, 0)));
            late.extend(packet(3, &err(code, state, message)));
            for data in [packet(1, &err(code, state, message)), late] {
                let (mut cols, mut row) = (Vec::new(), Vec::new());
                let (used, outcome) = results(&data, caps(), true, &mut cols, &mut row)
                    .expect("readable")
                    .expect("complete");
                assert_eq!(used, data.len());
                match outcome {
                    Outcome::Error(e) => assert_eq!(
                        e,
                        WireError {
                            kind,
                            detail: message.into(),
                            code,
                        }
                    ),
                    _ => panic!("{code}: not an error"),
                }
            }
        }
    }

    #[test]
    fn lengths_round_trip() {
        for v in [
            0,
            250,
            251,
            0xFFFF,
            0x1_0000,
            0xFF_FFFF,
            0x100_0000,
            u64::MAX,
        ] {
            let mut out = Vec::new();
            put_lenenc(&mut out, v);
            let mut at = 0;
            assert_eq!(lenenc(&out, &mut at).expect("length"), Some(v));
            assert_eq!(at, out.len());
        }
        assert!(lenenc(&[0xFC, 1], &mut 0).is_err());
        assert!(frame(&[0xFF, 0xFF, 0xFF, 0], 0).is_err());
    }

    #[test]
    fn an_ok_says_what_it_changed() {
        let mut ok = vec![0x00];
        put_lenenc(&mut ok, 100_000);
        ok.push(0);
        ok.extend_from_slice(&StatusFlags::SERVER_STATUS_AUTOCOMMIT.bits().to_le_bytes());
        ok.extend_from_slice(&2u16.to_le_bytes());
        let (outcome, _) = in_pieces(&packet(1, &ok), 1, Expect::Query).expect("readable");
        assert!(matches!(
            outcome,
            Outcome::Done(Done {
                rows: 0,
                affected: 100_000,
                warnings: 2
            })
        ));
    }
}
