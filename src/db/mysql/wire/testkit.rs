//! Replies built by hand for the tests of the MariaDB/MySQL connection's parsers: packets,
//! column definitions, OK and ERR packets, whole result sets, and the reply fed to the parse
//! whole or in pieces.

use mysql_common::constants::{CapabilityFlags, ColumnFlags, ColumnType, StatusFlags};
use mysql_common::Value;

use super::packet::put_lenenc;
use super::rows::{feed, Parse};
use super::{Done, Expect, Outcome, WireError};

/// A packet: header (length, sequence id) and payload.
pub(super) fn packet(seq: u8, payload: &[u8]) -> Vec<u8> {
    let mut p = (payload.len() as u32).to_le_bytes()[..3].to_vec();
    p.push(seq);
    p.extend_from_slice(payload);
    p
}

pub(super) fn lenenc_str(out: &mut Vec<u8>, s: &[u8]) {
    put_lenenc(out, s.len() as u64);
    out.extend_from_slice(s);
}

pub(super) fn column(name: &str, ty: ColumnType, flags: u16) -> Vec<u8> {
    let mut p = Vec::new();
    for s in ["def", "", "", "", name, ""] {
        lenenc_str(&mut p, s.as_bytes());
    }
    p.push(0x0C);
    p.extend_from_slice(&63u16.to_le_bytes());
    p.extend_from_slice(&11u32.to_le_bytes());
    p.push(ty as u8);
    p.extend_from_slice(&flags.to_le_bytes());
    p.extend_from_slice(&[0, 0, 0]);
    p
}

/// An OK packet (header 0x00, or 0xFE where it ends a result set) with `status`.
pub(super) fn ok(header: u8, status: StatusFlags) -> Vec<u8> {
    let mut p = vec![header, 0, 0];
    p.extend_from_slice(&status.bits().to_le_bytes());
    p.extend_from_slice(&0u16.to_le_bytes());
    p
}

pub(super) fn err(code: u16, state: &str, message: &str) -> Vec<u8> {
    let mut p = vec![0xFF];
    p.extend_from_slice(&code.to_le_bytes());
    p.push(b'#');
    p.extend_from_slice(state.as_bytes());
    p.extend_from_slice(message.as_bytes());
    p
}

pub(super) fn caps() -> CapabilityFlags {
    CapabilityFlags::CLIENT_PROTOCOL_41 | CapabilityFlags::CLIENT_DEPRECATE_EOF
}

/// The reply to a COM_QUERY (text rows) or COM_STMT_EXECUTE (`binary`) at the start of
/// `data`, read whole: the bytes it takes and the outcome, None when incomplete.
pub(super) fn results(
    data: &[u8],
    caps: CapabilityFlags,
    binary: bool,
    cols: &mut Vec<(ColumnType, ColumnFlags)>,
    rows: &mut Vec<Vec<Value>>,
) -> Result<Option<(usize, Outcome)>, WireError> {
    let expect = if binary {
        Expect::Execute
    } else {
        Expect::Query
    };
    let mut parse = Parse::new(expect);
    rows.clear();
    let (used, outcome) = feed(&mut parse, data, caps, cols, rows)?;
    Ok(outcome.map(|o| (used, o)))
}

pub(super) fn prepared(
    data: &[u8],
    caps: CapabilityFlags,
) -> Result<Option<(usize, Outcome)>, WireError> {
    let mut parse = Parse::new(Expect::Prepare);
    let (used, outcome) = feed(&mut parse, data, caps, &mut Vec::new(), &mut Vec::new())?;
    Ok(outcome.map(|o| (used, o)))
}

/// The same reply arriving in pieces of `piece` bytes, parsed as `Wire::reply` does:
/// what it says, and how many packets were parsed in all (each exactly once).
pub(super) fn in_pieces(
    data: &[u8],
    piece: usize,
    expect: Expect,
) -> Result<(Outcome, Vec<Vec<Value>>), WireError> {
    let mut parse = Parse::new(expect);
    let (mut cols, mut rows) = (Vec::new(), Vec::new());
    let mut pending = Vec::new();
    for chunk in data.chunks(piece) {
        pending.extend_from_slice(chunk);
        let (used, outcome) = feed(&mut parse, &pending, caps(), &mut cols, &mut rows)?;
        pending.drain(..used);
        if let Some(o) = outcome {
            assert!(pending.is_empty(), "bytes left after the reply");
            return Ok((o, rows));
        }
    }
    panic!("the reply never completed");
}

pub(super) fn done(rows: usize) -> Done {
    Done {
        rows,
        ..Done::default()
    }
}

/// What MariaDB sends for `CALL SLEV(?, ?, ?, ?)` executed as a prepared statement: the
/// OUT parameter as a one-row binary result set, then the CALL's own OK.
pub(super) fn call_reply() -> Vec<u8> {
    let more = StatusFlags::SERVER_MORE_RESULTS_EXISTS | StatusFlags::SERVER_PS_OUT_PARAMS;
    let mut r = packet(1, &[3]);
    r.extend(packet(
        2,
        &column("stock_count", ColumnType::MYSQL_TYPE_LONG, 0),
    ));
    r.extend(packet(
        3,
        &column("balance", ColumnType::MYSQL_TYPE_NEWDECIMAL, 0),
    ));
    r.extend(packet(
        4,
        &column("note", ColumnType::MYSQL_TYPE_VAR_STRING, 0),
    ));
    // The row: 0x00, bitmap (3 columns + 2 bits: one byte, column 2 NULL), the values.
    let mut row = vec![0x00, 1 << (2 + 2)];
    row.extend_from_slice(&42i32.to_le_bytes());
    lenenc_str(&mut row, b"-12.34");
    r.extend(packet(5, &row));
    r.extend(packet(6, &ok(0xFE, more)));
    r.extend(packet(7, &ok(0x00, StatusFlags::SERVER_STATUS_AUTOCOMMIT)));
    r
}

/// A binary result set of `n` rows (an id and a DECIMAL each) and its terminator.
pub(super) fn rows_reply(first_seq: u8, n: i64, status: StatusFlags) -> Vec<u8> {
    let mut r = packet(first_seq, &[2]);
    r.extend(packet(
        first_seq + 1,
        &column("id", ColumnType::MYSQL_TYPE_LONGLONG, 0),
    ));
    r.extend(packet(
        first_seq + 2,
        &column("price", ColumnType::MYSQL_TYPE_NEWDECIMAL, 0),
    ));
    for i in 0..n {
        let mut row = vec![0x00, 0];
        row.extend_from_slice(&i.to_le_bytes());
        lenenc_str(&mut row, format!("{i}.50").as_bytes());
        r.extend(packet(first_seq + 3 + i as u8, &row));
    }
    r.extend(packet(first_seq + 3 + n as u8, &ok(0xFE, status)));
    r
}

/// A text result set of `rows`, each value given (None for NULL), with its terminator.
pub(super) fn text_reply(names: &[&str], rows: &[Vec<Option<&str>>]) -> Vec<u8> {
    let mut seq = 1u8;
    let mut next = || {
        seq = seq.wrapping_add(1);
        seq - 1
    };
    let mut r = packet(next(), &[names.len() as u8]);
    for name in names {
        r.extend(packet(
            next(),
            &column(name, ColumnType::MYSQL_TYPE_VAR_STRING, 0),
        ));
    }
    for row in rows {
        let mut p = Vec::new();
        for v in row {
            match v {
                None => p.push(0xFB),
                Some(v) => lenenc_str(&mut p, v.as_bytes()),
            }
        }
        r.extend(packet(next(), &p));
    }
    let mut end = vec![0xFE, 0, 0];
    end.extend_from_slice(&StatusFlags::SERVER_STATUS_AUTOCOMMIT.bits().to_le_bytes());
    end.extend_from_slice(&3u16.to_le_bytes());
    r.extend(packet(next(), &end));
    r
}
